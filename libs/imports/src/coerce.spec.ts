import { coerceBoolean, coerceId, coerceList, coerceMoney, coerceNumber, coerceString, CoercionError } from './coerce';
import { coerceDate, coerceDateTime } from './dates';
import { normalizePhone } from './phone';
import { chunkRecords, jsonLength } from './import-run';

describe('lenient coercion', () => {
  it.each([
    [true, true],
    [false, false],
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    [1, true],
    [0, false],
    ['', undefined],
    [null, undefined],
  ])('boolean %p → %p', (input, output) => {
    expect(coerceBoolean(input)).toBe(output);
  });

  it('refuses what is not a boolean', () => {
    expect(() => coerceBoolean('maybe')).toThrow(CoercionError);
    expect(() => coerceBoolean(2)).toThrow(/true or false/);
  });

  it('turns integer ids into strings and refuses fractions', () => {
    expect(coerceId(1043)).toBe('1043');
    expect(coerceId(' A-17 ')).toBe('A-17');
    expect(coerceId('')).toBeUndefined();
    expect(() => coerceId(10.5)).toThrow(/whole number/);
    expect(() => coerceId({})).toThrow(/an object/);
  });

  it('reads lists as arrays, single strings or comma-joined strings', () => {
    expect(coerceList(['vip', 'news'])).toEqual(['vip', 'news']);
    expect(coerceList('vip')).toEqual(['vip']);
    expect(coerceList('vip, news,,vip')).toEqual(['vip', 'news']);
    expect(() => coerceList({ a: 1 })).toThrow(/list/);
  });

  it('keeps each list item once, in the order first sent, however long the list', () => {
    // Past 16 distinct items the repeats are found another way: the same list either way.
    const items = Array.from({ length: 40 }, (_, i) => `t${i % 25}`);
    const expected = Array.from({ length: 25 }, (_, i) => `t${i}`);
    expect(coerceList(items)).toEqual(expected);
    expect(coerceList([' b ', 'a', 'b', '', 'a ', 3, '3'])).toEqual(['b', 'a', '3']);
    expect(() => coerceList(['a', null, 'b'])).toThrow(/item 1 is empty/);
  });

  it('keeps strings, stringifies numbers, caps length', () => {
    expect(coerceString(12)).toBe('12');
    expect(coerceString(null)).toBeUndefined();
    expect(() => coerceString('x'.repeat(11), 10)).toThrow(/at most 10/);
  });
});

describe('numbers, money, dates, phones', () => {
  it('reads numbers from strings and money as whole cents', () => {
    expect(coerceNumber('2.0000')).toBe(2);
    expect(coerceNumber(' -1.5 ')).toBe(-1.5);
    expect(coerceNumber('')).toBeUndefined();
    expect(() => coerceNumber('2,5')).toThrow(/expected a number/);
    expect(coerceMoney(3400.0)).toBe(3400);
    expect(() => coerceMoney('3400.00')).toThrow('money is in whole cents, sent as a number or digits; "3400.00" has a decimal point: send 340000 for 3400.00');
    expect(() => coerceMoney('5.00')).toThrow(/send 500 for 5.00/);
    expect(() => coerceMoney('12.50')).toThrow(/send 1250 for 12.50/);
    expect(coerceMoney(' 500 ')).toBe(500);
    expect(coerceMoney('5e2')).toBe(500);
    expect(() => coerceMoney(34.5)).toThrow(/fraction of a cent/);
  });

  it.each([
    ['2024-03-01', 'UTC', '2024-03-01T00:00:00Z'],
    ['2024-03-01T10:00:00Z', 'Europe/Helsinki', '2024-03-01T10:00:00Z'],
    ['2024-03-01T10:00:00+00:00', 'Europe/Helsinki', '2024-03-01T10:00:00Z'],
    ['2024-03-01T10:00:00-05:00', 'UTC', '2024-03-01T15:00:00Z'],
    ['2024-03-01T10:00:00', 'Europe/Helsinki', '2024-03-01T08:00:00Z'],
    ['2024-07-01 10:00:00', 'Europe/Helsinki', '2024-07-01T07:00:00Z'],
    ['2024-03-01T10:00:00.123Z', 'UTC', '2024-03-01T10:00:00.123Z'],
  ])('datetime %s in %s → %s', (raw, zone, utc) => {
    expect(coerceDateTime(raw, zone)).toBe(utc);
  });

  it('refuses impossible dates and times instead of shifting them', () => {
    expect(() => coerceDateTime('2025-02-29')).toThrow(/not a real date/);
    expect(() => coerceDate('2024-13-01')).toThrow(/not a real date/);
    expect(() => coerceDateTime('2024-03-01 25:00:00')).toThrow(/impossible time/);
    expect(coerceDate('2024-02-29')).toBe('2024-02-29');
    expect(() => coerceDateTime('01/03/2024')).toThrow(/ISO 8601/);
    // The same checks hold for timestamps already in the returned form (answered on a shorter path).
    expect(coerceDateTime(' 2024-02-29T23:59:59Z ', 'Europe/Helsinki')).toBe('2024-02-29T23:59:59Z');
    expect(() => coerceDateTime('2025-02-29T10:00:00Z')).toThrow(/not a real date/);
    expect(() => coerceDateTime('2024-04-31T10:00:00Z')).toThrow(/not a real date/);
    expect(() => coerceDateTime('2024-03-01T24:00:00Z')).toThrow(/impossible time/);
    expect(() => coerceDateTime('2024-03-01T10:60:00Z')).toThrow(/impossible time|ISO 8601/);
    // Leap years by the Gregorian rule, month lengths, and every field's range.
    expect(coerceDateTime('2000-02-29T00:00:00Z')).toBe('2000-02-29T00:00:00Z');
    expect(() => coerceDateTime('1900-02-29T00:00:00Z')).toThrow(/not a real date/);
    expect(coerceDateTime('2024-12-31T23:59:59Z')).toBe('2024-12-31T23:59:59Z');
    expect(coerceDateTime('2024-09-30T00:00:00Z')).toBe('2024-09-30T00:00:00Z');
    expect(() => coerceDateTime('2024-09-31T00:00:00Z')).toThrow(/not a real date/);
    expect(() => coerceDateTime('2024-13-01T00:00:00Z')).toThrow(/not a real date/);
    expect(() => coerceDateTime('2024-00-10T00:00:00Z')).toThrow(/not a real date/);
    expect(() => coerceDateTime('2024-01-00T00:00:00Z')).toThrow(/not a real date/);
    expect(() => coerceDateTime('2024-01-01T23:59:60Z')).toThrow(/impossible time/);
  });

  it('normalises phone numbers to +<digits> where the default country allows', () => {
    expect(normalizePhone('040 765 4321', 'FI')).toBe('+358407654321');
    expect(normalizePhone('+358 40 765 4321', null)).toBe('+358407654321');
    expect(normalizePhone('00358 40 765 4321', null)).toBe('+358407654321');
    expect(normalizePhone('040 765 4321', null)).toBe('0407654321');
    expect(normalizePhone('12', 'FI')).toBeUndefined();
  });
});

describe('chunking', () => {
  it('cuts chunks of at most 1,000 records or ~512 KB, keeping order', () => {
    const records = Array.from({ length: 2500 }, (_, i) => ({ i }));
    const chunks = chunkRecords(records);
    expect(chunks.map((c) => c.length)).toEqual([1000, 1000, 500]);
    expect(chunks.flat()).toEqual(records);
    const big = Array.from({ length: 10 }, (_, i) => ({ i, pad: 'x'.repeat(200 * 1024) }));
    expect(chunkRecords(big).map((c) => c.length)).toEqual([2, 2, 2, 2, 2]);
  });

  it('estimates a record\'s JSON length without serialising it: exact without escapes, close with them', () => {
    const values: unknown[] = [
      {}, [], null, true, false, 0, -12.5, 1e21, 'text', ['a', 1, null, [true, {}]],
      { external_id: 'B-1', tags: ['vip', 't1'], can_email: false, n: 42, nested: { a: [1, 2, { b: 'c' }] }, empty: '' },
      { skipped: undefined, kept: 1 }, [undefined, 1], { ä: 'åäö €' },
    ];
    for (const v of values) expect([v, jsonLength(v)]).toEqual([v, JSON.stringify(v).length]);
    const escaped = { quote: 'say "hi"\n', path: 'C:\\dir' };
    expect(jsonLength(escaped)).toBeLessThan(JSON.stringify(escaped).length);
    expect(jsonLength(escaped)).toBeGreaterThanOrEqual(JSON.stringify(escaped).length - 4);
  });
});
