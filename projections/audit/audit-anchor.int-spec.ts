import { randomUUID } from 'node:crypto';
import { readPublicKey } from '#mds/platform';
import { openProjectingRuntime, type TestRuntime } from '#mds/testing/runtime';
import { eventually } from '#mds/testing/eventually';
import { AUDIT_CHAIN_STREAM, chainPointAt, exportLines, verifyExport, type SignedPoint } from './audit-export';

describe('the audit anchor: signed checkpoints of the chain, appended by a projector', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await openProjectingRuntime({ env: { MDS_AUDIT_CHECKPOINT_MS: '100' } });
  });
  afterAll(async () => {
    await rt?.close();
  });

  const checkpoints = async () => (await rt.store.readStream(AUDIT_CHAIN_STREAM).catch(() => [])).map((e) => ({ ...(e.data as SignedPoint), at: e.position }));

  it('checkpoints the chain when events came, signed; not again when nothing came but itself; and an export verifies through them', async () => {
    await rt.store.append(`tally-${randomUUID()}`, [{ type: 'Tallied', data: { n: 1 } }, { type: 'Tallied', data: { n: 2 } }]);
    const [first] = await eventually(async () => {
      const cps = await checkpoints();
      expect(cps.length).toBe(1);
      return cps;
    });
    expect(first).toMatchObject({ position: 2, count: 2, key_id: rt.auditSigner().keyId });
    expect(first.head).toBe((await chainPointAt(rt.store, 2)).head);
    // A few intervals with nothing new but the checkpoint itself: no checkpoint of a checkpoint alone.
    await new Promise((r) => setTimeout(r, 500));
    expect(await checkpoints()).toHaveLength(1);
    await rt.store.append(`tally-${randomUUID()}`, [{ type: 'Tallied', data: { n: 3 } }]);
    const second = await eventually(async () => {
      const cps = await checkpoints();
      expect(cps.length).toBe(2);
      return cps[1];
    });
    expect(second).toMatchObject({ position: first.at + 1, count: 4 });
    const lines: string[] = [];
    for await (const text of exportLines(rt.store, { from: 1, to: await rt.store.headPosition() }, { signer: rt.auditSigner() })) lines.push(...text.split('\n').filter(Boolean));
    expect(await verifyExport(lines, readPublicKey(rt.auditSigner().publicKeyPem))).toMatchObject({ ok: true, checkpoints: 2, signed: true });
  });

  it('chains events of every size across pages sized by their events, the same as an export verifies', async () => {
    const before = await rt.store.headPosition();
    // Small events, then large ones (pages of them hold fewer), then small again: pages of 20, then ~16, then 1,000.
    const big = 'x'.repeat(500_000);
    await rt.store.append(`tally-${randomUUID()}`, Array.from({ length: 250 }, (_, i) => ({ type: 'Tallied', data: { n: i } })));
    for (let i = 0; i < 6; i++) await rt.store.append(`tally-${randomUUID()}`, Array.from({ length: 10 }, (_, j) => ({ type: 'Tallied', data: { n: j, big } })));
    await rt.store.append(`tally-${randomUUID()}`, Array.from({ length: 1200 }, (_, i) => ({ type: 'Tallied', data: { n: i } })));
    const head = await rt.store.headPosition();
    const lines: string[] = [];
    for await (const text of exportLines(rt.store, { from: before + 1, to: head }, { signer: rt.auditSigner() })) lines.push(...text.split('\n').filter(Boolean));
    // A start line, an event line each (the anchor's own checkpoints among them), a final line.
    expect(lines.length - 2).toBe(head - before);
    expect(await verifyExport(lines, readPublicKey(rt.auditSigner().publicKeyPem))).toMatchObject({ ok: true, signed: true });
    expect((await chainPointAt(rt.store, head)).head).toBe(JSON.parse(lines[lines.length - 1]).head);
  });
});
