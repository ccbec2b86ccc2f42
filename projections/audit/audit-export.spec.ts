import { canonicalJson, chainHash, GENESIS, verifyExport } from './audit-export';

describe('canonical JSON and the export chain', () => {
  it('sorts keys at every depth, keeps array order, drops undefined and writes no spaces', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: null }], c: 'x' }, u: undefined })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":1}]},"b":1}');
    expect(canonicalJson({ é: 1, e: 2, E: 3 })).toBe('{"E":3,"e":2,"é":1}');
    expect(canonicalJson([undefined, 'a\n"b"'])).toBe('[null,"a\\n\\"b\\""]');
  });

  it('verifies a chain built line by line, and names the line where it breaks', async () => {
    const events = [{ position: 1, type: 'A' }, { position: 2, type: 'B' }];
    let prev = GENESIS;
    const lines = events.map((e, i) => {
      const hash = chainHash(prev, canonicalJson(e));
      const line = canonicalJson({ event: e, hash, n: i + 1, prev });
      prev = hash;
      return line;
    });
    const final = canonicalJson({ count: 2, from: 1, hash: chainHash(prev, canonicalJson({ count: 2, from: 1, to: 2 })), head: prev, to: 2 });
    expect(await verifyExport([...lines, final])).toEqual({ ok: true, count: 2, head: prev });
    expect(await verifyExport([lines[0], final])).toMatchObject({ ok: false, line: 2, problem: expect.stringMatching(/counts 2 events, the file has 1/) });
    expect(await verifyExport([lines[0], lines[1].replace('"B"', '"C"'), final])).toMatchObject({ ok: false, line: 2, problem: expect.stringMatching(/^hash does not match/) });
    expect(await verifyExport([lines[0], lines[1], final.replace('"to":2', '"to":3')])).toMatchObject({ ok: false, line: 3, problem: expect.stringMatching(/final line's hash/) });
    expect(await verifyExport([])).toMatchObject({ ok: false, line: 1, problem: expect.stringMatching(/cut short/) });
  });
});
