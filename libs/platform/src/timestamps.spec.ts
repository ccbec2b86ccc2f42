import { answerTimestamp, fixTimestamp, fixTimestampsInJson } from './timestamps';

describe('timestamps in answers', () => {
  it.each([
    ['2026-03-01T09:30:00Z', '2026-03-01T09:30:00.000000Z'],
    ['2026-03-01T09:30:00.5Z', '2026-03-01T09:30:00.500000Z'],
    ['2026-03-01T09:30:00.123Z', '2026-03-01T09:30:00.123000Z'],
    ['2026-03-01T09:30:00.123456Z', '2026-03-01T09:30:00.123456Z'],
    ['2026-03-01T09:30:00.123456789Z', '2026-03-01T09:30:00.123456Z'],
    ['2026-03-01T09:30:00.25+00:00', '2026-03-01T09:30:00.250000Z'],
    ['2026-03-01T01:30:00+02:00', '2026-02-28T23:30:00.000000Z'],
    ['2026-03-01T22:45:10.1-05:30', '2026-03-02T04:15:10.100000Z'],
  ])('%s is answered as %s', (given, answered) => {
    expect(fixTimestamp(given)).toBe(answered);
  });

  it.each(['2026-03-01', 'not 2026-03-01T09:30:00Z', '2026-03-01T09:30Z', 'C-1001'])('%s is not a timestamp and stays as it is', (value) => {
    expect(fixTimestamp(value)).toBe(value);
  });

  it('given JSON text, when fixed, then every timestamp value is rewritten and an escaped one inside another string is not', () => {
    const text = JSON.stringify({ a: '2026-03-01T09:30:00Z', list: [{ at: '2026-03-01T09:30:00.1+01:00' }], note: 'said "2026-03-01T09:30:00Z"' });
    expect(JSON.parse(fixTimestampsInJson(text))).toEqual({
      a: '2026-03-01T09:30:00.000000Z',
      list: [{ at: '2026-03-01T08:30:00.100000Z' }],
      note: 'said "2026-03-01T09:30:00Z"',
    });
  });
});

describe('timestamps in answers, looked for by their T', () => {
  // What the expression alone makes of the text (the way answers were fixed before the scan by T), each
  // timestamp converted by Date as the service converts it.
  const TIMESTAMP = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?!\.\d{6}Z")(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})"/g;
  const converted = (base: string, fraction: string | undefined, zone: string) => {
    const micro = (fraction ?? '').padEnd(6, '0').slice(0, 6);
    const utc = Date.parse(`${base}${zone}`);
    return zone === 'Z' ? `${base}.${micro}Z` : Number.isNaN(utc) ? `${base}.${micro}${zone}` : `${new Date(utc).toISOString().slice(0, 19)}.${micro}Z`;
  };
  const byExpression = (text: string) => text.replace(TIMESTAMP, (_m, base: string, fraction: string | undefined, zone: string) => `"${converted(base, fraction, zone)}"`);

  it('given a page whose timestamps are all in form, when fixed, then it is the same text', () => {
    const page = JSON.stringify({ results: Array.from({ length: 50 }, (_, i) => ({ id: i, Title: 'Tea', updated_at: '2026-03-01T09:30:00.123456Z', note: 'Tea at 2026-03-01T09:30:00Z' })) });
    expect(fixTimestampsInJson(page)).toBe(page);
  });

  it('given a timestamp\'s closing quote that could open another, when fixed, then only the first is rewritten, as the expression does', () => {
    const text = '"2026-03-01T09:30:00Z"2026-03-01T09:30:00Z"';
    expect(fixTimestampsInJson(text)).toBe('"2026-03-01T09:30:00.000000Z"2026-03-01T09:30:00Z"');
    expect(fixTimestampsInJson(text)).toBe(byExpression(text));
  });

  it('given texts made of timestamp-like pieces, when fixed, then each is what the expression alone makes of it', () => {
    const pieces = ['"2026-03-01T09:30:00', '"2026-03-01T09:30:00.123456Z"', '.123456', '.5', '.1234567', '.123456789', '.1234567890', '.', 'Z', 'Z"', '+02:00"', '-05:30"', '+2:00"', '"', 'T', 'x', '\\"', '2026-03-01', '2026-03-01T09:30:00', ':', '7'];
    let seed = 20261127;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let changed = 0;
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: 4 + Math.floor(next() * 30) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      const expected = byExpression(text);
      if (expected !== text) changed++;
      expect([text, fixTimestampsInJson(text)]).toEqual([text, expected]);
    }
    expect(changed).toBeGreaterThan(50);
  });
});

describe('answerTimestamp', () => {
  it('gives a moment in the answers\' form, from a Date, its text or its milliseconds', () => {
    const at = Date.UTC(2026, 2, 1, 9, 30, 0, 120);
    expect([answerTimestamp(new Date(at)), answerTimestamp('2026-03-01T11:30:00.12+02:00'), answerTimestamp(at)]).toEqual(Array(3).fill('2026-03-01T09:30:00.120000Z'));
  });

});
