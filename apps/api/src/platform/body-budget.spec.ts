import { BodyBudget, bodyBytes } from './body-budget';

describe('request-body memory budget', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const settled = async <T>(p: Promise<T>): Promise<T | 'pending'> => Promise.race([p, Promise.resolve().then(() => 'pending' as const)]);

  it('admits what fits at once, and a request of any size when nothing else is in flight', async () => {
    const budget = new BodyBudget(100);
    const a = budget.reserve(60);
    expect(await a.granted).toBe(true);
    a.release();
    expect(await budget.reserve(500).granted).toBe(true);
    expect(budget.bytesInFlight).toBe(500);
  });

  it('lets a request that does not fit wait, and admits it when room is made in time', async () => {
    const budget = new BodyBudget(100, 2000);
    const a = budget.reserve(60);
    const b = budget.reserve(60);
    expect(await settled(b.granted)).toBe('pending');
    expect(budget.requestsWaiting).toBe(1);
    jest.advanceTimersByTime(1000);
    a.release();
    expect(await b.granted).toBe(true);
    expect([budget.bytesInFlight, budget.requestsWaiting]).toEqual([60, 0]);
  });

  it('refuses after the wait, in arrival order, and holds nothing for the refused', async () => {
    const budget = new BodyBudget(100, 2000);
    budget.reserve(60);
    const b = budget.reserve(60);
    // Would fit, but comes after one that waits: no overtaking.
    const c = budget.reserve(30);
    expect(await settled(c.granted)).toBe('pending');
    jest.advanceTimersByTime(2000);
    expect(await b.granted).toBe(false);
    // b gone, c fits behind what is held.
    expect(await c.granted).toBe(true);
    b.release();
    expect(budget.bytesInFlight).toBe(90);
  });

  it('releases once, and a request released while it waits is never granted', async () => {
    const budget = new BodyBudget(100, 2000);
    const a = budget.reserve(60);
    const b = budget.reserve(60);
    b.release();
    expect(await b.granted).toBe(false);
    a.release();
    a.release();
    expect([budget.bytesInFlight, budget.requestsWaiting]).toEqual([0, 0]);
  });

  it('counts a body by its Content-Length, a chunked one as the body limit, one over the limit as nothing', () => {
    expect(bodyBytes({ 'content-length': '900' }, 1000)).toBe(900);
    expect(bodyBytes({ 'transfer-encoding': 'chunked' }, 1000)).toBe(1000);
    expect(bodyBytes({ 'content-length': '1001' }, 1000)).toBe(0);
    expect(bodyBytes({ 'content-length': '0' }, 1000)).toBe(0);
    expect(bodyBytes({}, 1000)).toBe(0);
  });
});
