import { parseLsn, WalTimeline } from './replica-lag';

describe('a replica\'s lag from the primary\'s sampled WAL positions', () => {
  it('reads WAL positions as PostgreSQL prints them', () => {
    expect(parseLsn('0/3605420')).toBe(0x3605420n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(() => parseLsn('latest')).toThrow('not a WAL position');
  });

  it('counts a replica late by how long ago the primary wrote what it has not replayed', () => {
    const timeline = new WalTimeline(60_000);
    timeline.record(1000, 100n);
    timeline.record(2000, 300n);
    timeline.record(3000, 300n);
    // Replayed up to 100: what was written by 2000 is missing, 5000 − 2000 ms ago.
    expect(timeline.lagOf(100n, 5000)).toEqual({ ms: 3000, bytes: 200 });
    // An idle primary writes nothing: a replica that has everything lags by 0, however long ago the last write.
    expect(timeline.lagOf(300n, 60_000)).toEqual({ ms: 0, bytes: 0 });
  });

  it('keeps samples for a while only, so a replica behind all of them lags by at least that while', () => {
    const timeline = new WalTimeline(1000);
    timeline.record(0, 100n);
    timeline.record(5000, 200n);
    timeline.record(5500, 300n);
    expect(timeline.lagOf(50n, 6000)).toEqual({ ms: 1000, bytes: 250 });
  });
});
