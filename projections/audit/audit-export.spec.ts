import { generateKeyPairSync } from 'node:crypto';
import { AuditSigner, keyIdOf } from '#mds/platform';
import { canonicalJson, chainHash, GENESIS, verifyExport } from './audit-export';

describe('canonical JSON and the export chain', () => {
  it('sorts keys at every depth, keeps array order, drops undefined and writes no spaces', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: null }], c: 'x' }, u: undefined })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":1}]},"b":1}');
    expect(canonicalJson({ é: 1, e: 2, E: 3 })).toBe('{"E":3,"e":2,"é":1}');
    expect(canonicalJson([undefined, 'a\n"b"'])).toBe('[null,"a\\n\\"b\\""]');
  });

  /** An export of these events from the genesis, as exportLines writes it; signed when a signer is given. */
  function exported(events: Array<Record<string, unknown>>, signer?: AuditSigner) {
    let prev = GENESIS;
    const lines = [canonicalJson({ start: { count: 0, head: GENESIS, position: 0 } })];
    events.forEach((e, i) => {
      const hash = chainHash(prev, canonicalJson(e));
      lines.push(canonicalJson({ event: e, hash, n: i + 1, prev }));
      prev = hash;
    });
    const final = { count: events.length, from: 1, hash: chainHash(prev, canonicalJson({ count: events.length, from: 1, to: events.length })), head: prev, to: events.length };
    lines.push(canonicalJson(signer ? { ...final, key_id: signer.keyId, signature: signer.sign(final) } : final));
    return { lines, head: prev };
  }

  it('verifies a chain built line by line, and names the line where it breaks', async () => {
    const { lines, head } = exported([{ position: 1, type: 'A' }, { position: 2, type: 'B' }]);
    const [start, a, b, final] = lines;
    expect(await verifyExport(lines)).toEqual({ ok: true, count: 2, head, signed: false, checkpoints: 0, personal: { verified: 0, erased: 0, uncommitted: 0 } });
    expect(await verifyExport([start, a, final])).toMatchObject({ ok: false, line: 3, problem: expect.stringMatching(/counts 2 events, the file has 1/) });
    expect(await verifyExport([start, a, b.replace('"B"', '"C"'), final])).toMatchObject({ ok: false, line: 3, problem: expect.stringMatching(/^hash does not match/) });
    expect(await verifyExport([start, a, b, final.replace('"to":2', '"to":3')])).toMatchObject({ ok: false, line: 4, problem: expect.stringMatching(/final line's hash/) });
    expect(await verifyExport([a, b, final])).toMatchObject({ ok: false, line: 1, problem: expect.stringMatching(/not the start line/) });
    expect(await verifyExport([])).toMatchObject({ ok: false, line: 1, problem: expect.stringMatching(/cut short/) });
  });

  it('with the public key, takes only what that key signed: a re-signed or unsigned end is found', async () => {
    const key = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    const signer = new AuditSigner(key.privateKey);
    const publicKey = { key: key.publicKey, keyId: keyIdOf(key.publicKey) };
    const events = [{ position: 1, type: 'A' }, { position: 2, type: 'B' }, { position: 3, type: 'C' }];
    const signed = exported(events, signer);
    expect(await verifyExport(signed.lines, publicKey)).toEqual({ ok: true, count: 3, head: signed.head, signed: true, checkpoints: 0, personal: { verified: 0, erased: 0, uncommitted: 0 } });
    // The tail cut and the end made again by someone without the key: unsigned, or signed by another key.
    const cut = exported(events.slice(0, 2));
    expect(await verifyExport(cut.lines)).toMatchObject({ ok: true });
    expect(await verifyExport(cut.lines, publicKey)).toMatchObject({ ok: false, line: 4, problem: expect.stringMatching(/final line is not signed by this key/) });
    expect(await verifyExport(exported(events.slice(0, 2), new AuditSigner(other.privateKey)).lines, publicKey)).toMatchObject({ ok: false, line: 4, problem: expect.stringMatching(/not signed by this key/) });
    // The signature's last character holds spare bits: a text decoding to the same bytes is not the one written.
    const finalLine = signed.lines[signed.lines.length - 1];
    const sig = JSON.parse(finalLine).signature as string;
    const last = sig[sig.length - 1];
    const twin = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].find((c) => c !== last && Buffer.from(sig.slice(0, -1) + c, 'base64url').equals(Buffer.from(sig, 'base64url')))!;
    expect(twin).toBeDefined();
    expect(await verifyExport([...signed.lines.slice(0, -1), finalLine.replace(sig, sig.slice(0, -1) + twin)], publicKey)).toMatchObject({ ok: false, line: 5 });
    // An event changed and the chain recomputed: consistent without the key, found with it.
    const edited = exported([events[0], { position: 2, type: 'X' }, events[2]]);
    const resigned = [...edited.lines.slice(0, -1), signed.lines[signed.lines.length - 1].replace(signed.head, edited.head)];
    expect(await verifyExport(resigned, publicKey)).toMatchObject({ ok: false, line: 5 });
  });
});
