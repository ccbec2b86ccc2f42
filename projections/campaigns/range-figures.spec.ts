import { RangeFigures } from './campaigns.queries';

describe('RangeFigures', () => {
  it('keeps up to max records, dropping the least recently used first', () => {
    const kept = new RangeFigures(2);
    kept.set('a', 'A');
    kept.set('b', 'B');
    expect(kept.get('a')).toBe('A'); // a is now the most recently used
    kept.set('c', 'C');
    expect([kept.get('a'), kept.get('b'), kept.get('c'), kept.size]).toEqual(['A', undefined, 'C', 2]);
  });

  it('replaces a record set again without counting it twice', () => {
    const kept = new RangeFigures(2);
    kept.set('a', 'A');
    kept.set('a', 'A2');
    kept.set('b', 'B');
    expect([kept.get('a'), kept.get('b'), kept.size]).toEqual(['A2', 'B', 2]);
  });
});
