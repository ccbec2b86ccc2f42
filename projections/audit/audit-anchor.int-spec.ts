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
});
