import { normalizeSaleState, roundQuantity } from '.';

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
