import { coerceBoolean, coerceId, coerceList, coerceString, CoercionError } from './coerce';
import { chunkRecords } from './import-run';

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

  it('keeps strings, stringifies numbers, caps length', () => {
    expect(coerceString(12)).toBe('12');
    expect(coerceString(null)).toBeUndefined();
    expect(() => coerceString('x'.repeat(11), 10)).toThrow(/at most 10/);
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
});
