import { fromSaleCurrency, normalizeSaleState, roundQuantity } from '.';

describe('sale states', () => {
  it.each([
    ['complete', 'COMPLETE'],
    ['COMPLETED', 'COMPLETE'],
    ['wc-completed', 'COMPLETE'],
    ['canceled', 'CANCELLED'],
    ['Cancelled', 'CANCELLED'],
    ['on-hold', 'HOLDED'],
    ['pending', 'PENDING_PAYMENT'],
    ['payment_review', 'PENDING_PAYMENT'],
    ['refunded', 'CLOSED'],
    ['checkout-draft', 'NEW'],
  ])('reads %s as %s', (sent, state) => {
    expect(normalizeSaleState(sent)).toEqual({ state, known: true });
  });

  it('keeps an unknown state as sent', () => {
    expect(normalizeSaleState(' Awaiting pickup ')).toEqual({ state: 'Awaiting pickup', known: false });
  });
});

describe('quantities', () => {
  it.each([
    [0.003, 0],
    [0.005, 0.01],
    [1.005, 1.01],
    [2.675, 2.68],
    [1.004999, 1],
    [3, 3],
    [-1.005, -1.01],
  ])('rounds %d half-up to %d', (q, rounded) => {
    expect(roundQuantity(q)).toBe(rounded);
  });
});

describe('prices in the sale currency', () => {
  it('are converted by the rate to the cent and used instead of the default-currency price', () => {
    expect(fromSaleCurrency(11500, 11.5)).toEqual({ cents: 1000, disagrees: false });
    expect(fromSaleCurrency(1150, 11.5, 100)).toEqual({ cents: 100, disagrees: false });
    expect(fromSaleCurrency(-2300, 11.5)).toEqual({ cents: -200, disagrees: false });
    expect(fromSaleCurrency(1005, 10)).toEqual({ cents: 101, disagrees: false }); // 100.5 rounds half away from zero
  });

  it('disagree with a default-currency price sent too only when more than a cent apart', () => {
    expect(fromSaleCurrency(11500, 11.5, 1001).disagrees).toBe(false);
    expect(fromSaleCurrency(11500, 11.5, 999).disagrees).toBe(false);
    expect(fromSaleCurrency(11500, 11.5, 1002).disagrees).toBe(true);
    expect(fromSaleCurrency(11500, 11.5, 998).disagrees).toBe(true);
  });
});
