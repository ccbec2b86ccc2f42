import { KeptAnswers } from './kept-answers';

// What an API process keeps between requests: until a forget or the keep time, never a read a forget overtook.
describe('KeptAnswers', () => {
  const loader = () => {
    let n = 0;
    return { load: async () => `answer ${++n}`, count: () => n };
  };

  it('loads every time until told to keep, then once until it forgets or the time passes', async () => {
    const kept = new KeptAnswers<string>();
    const l = loader();
    await kept.get('a', l.load);
    expect(await kept.get('a', l.load)).toBe('answer 2');
    kept.keepFor(60_000);
    expect([await kept.get('a', l.load), await kept.get('a', l.load), await kept.get('b', l.load)]).toEqual(['answer 3', 'answer 3', 'answer 4']);
    kept.forget();
    expect(await kept.get('a', l.load)).toBe('answer 5');
    kept.keepFor(1);
    await kept.get('c', l.load);
    await new Promise((r) => setTimeout(r, 5));
    expect(await kept.get('c', l.load)).toBe('answer 7');
  });

  it('does not keep a read that a forget overtook, and reads again what is not usable', async () => {
    const kept = new KeptAnswers<string>();
    kept.keepFor(60_000);
    const l = loader();
    const inFlight = kept.get('a', l.load);
    kept.forget();
    await inFlight;
    expect(await kept.get('a', l.load)).toBe('answer 2');
    expect(await kept.get('a', l.load, (v) => v !== 'answer 2')).toBe('answer 3');
    expect(await kept.get('a', l.load)).toBe('answer 3');
  });

  it('lets the oldest go past maxSize, by the sizes given', async () => {
    const kept = new KeptAnswers<string>({ maxSize: 10, sizeOf: (v) => v.length });
    kept.keepFor(60_000);
    const l = loader();
    for (const key of ['a', 'b', 'c']) await kept.get(key, l.load); // 8 characters each: only the last fits
    expect(l.count()).toBe(3);
    await kept.get('c', l.load);
    expect(l.count()).toBe(3);
    await kept.get('a', l.load);
    expect(l.count()).toBe(4);
  });
});
