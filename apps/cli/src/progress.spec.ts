import { renderProgress } from './progress';

describe('progress line', () => {
  it('shows the bar, position, rate and ETA', () => {
    const line = renderProgress({ label: 'customers g3', position: 250, head: 1000, eventsPerSecond: 125.4, etaSeconds: 6 }, 20);
    expect(line).toBe('customers g3 [#####---------------]  25.0%  position 250/1000  125 events/s  ETA 00:06');
  });

  it('handles an empty log and long ETAs', () => {
    expect(renderProgress({ label: 'p g1', position: 0, head: 0, eventsPerSecond: 0, etaSeconds: undefined }, 4)).toBe(
      'p g1 [####] 100.0%  position 0/0  0 events/s  ETA --:--',
    );
    expect(renderProgress({ label: 'p g1', position: 1, head: 2, eventsPerSecond: 1, etaSeconds: 3725 }, 2)).toMatch(/ETA 1:02:05$/);
  });
});
