import { rebuildEta } from './projection-runner';

describe('a rebuild\'s ETA', () => {
  it('follows the checkpoint through the log\'s positions, whatever share of them the projection takes', () => {
    // 1,000 of 10,000 positions passed in 1 s: 9 s to go, whether it took 10 events or 1,000 on the way.
    expect(rebuildEta(1, 1000, 10_000)).toBe(9);
    expect(rebuildEta(6, 6000, 6000)).toBe(0);
    expect(rebuildEta(2, 0, 500)).toBeUndefined();
  });
});
