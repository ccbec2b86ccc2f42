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

describe('answerTimestamp', () => {
  it('gives a moment in the answers\' form, from a Date, its text or its milliseconds', () => {
    const at = Date.UTC(2026, 2, 1, 9, 30, 0, 120);
    expect([answerTimestamp(new Date(at)), answerTimestamp('2026-03-01T11:30:00.12+02:00'), answerTimestamp(at)]).toEqual(Array(3).fill('2026-03-01T09:30:00.120000Z'));
  });

});
