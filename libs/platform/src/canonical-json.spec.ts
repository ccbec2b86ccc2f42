import { canonicalJson } from './canonical-json';

// One text for one value, whether its objects come with their keys in order (the serialiser alone) or not (sorted on the way).
describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no spaces', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }, 2], c: { z: true, y: { b: 2, a: 1 } } })).toBe('{"a":[{"c":"x","d":null},2],"b":1,"c":{"y":{"a":1,"b":2},"z":true}}');
  });

  it('gives the same text for the same value in any key order, sorted or not', () => {
    const sorted = { a: 1, b: [{ x: 'é', y: '\u2028' }], c: { d: -0.5, e: 1e21 } };
    const shuffled = { c: { e: 1e21, d: -0.5 }, b: [{ y: '\u2028', x: 'é' }], a: 1 };
    expect(canonicalJson(shuffled)).toBe(canonicalJson(sorted));
    expect(canonicalJson(sorted)).toBe(JSON.stringify(sorted));
  });

  it('writes own keys only, whatever an object inherits', () => {
    const inherits = (proto: object, own: Record<string, unknown>) => Object.assign(Object.create(proto) as Record<string, unknown>, own);
    expect(canonicalJson(inherits({ z: 0 }, { b: 1, a: 2 }))).toBe('{"a":2,"b":1}');
    expect(canonicalJson([inherits({ a: 0 }, { b: 1, c: 2 }), inherits({ c: 0 }, { a: 1 })])).toBe('[{"b":1,"c":2},{"a":1}]');
  });

  it('writes what toJSON gives, and null for nothing', () => {
    expect(canonicalJson({ b: new Date('2026-03-01T00:00:00Z'), a: 1 })).toBe('{"a":1,"b":"2026-03-01T00:00:00.000Z"}');
    expect(canonicalJson([{ b: 1, a: undefined }])).toBe('[{"b":1}]');
    expect(canonicalJson(undefined)).toBe('null');
  });
});
