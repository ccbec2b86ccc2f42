// Webhook delivery throughput: the outlet worker delivering posted messages (batched by 100, signed,
// every attempt recorded as an event and projected into the outlet log) next to a bare undici loop
// posting the same batches to the same local receiver, in the same run. Median of 3.
import { createServer } from 'node:http';
import * as os from 'node:os';
import { request } from 'undici';
import { DeliveryWorker } from '../apps/outlet-worker/src/delivery-worker';
import { outletStateOf, outletStream } from '../libs/datatargets/src';
import { datasyncProjection, datatargetsProjection } from '../projections';
import { median } from './bench-database';
import { ratioRow, startBenchService } from './bench-service';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20_000);
const BATCH = 100;
const REPS = 3;

async function main() {
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  const service = await startBenchService([datatargetsProjection, datasyncProjection], { OUTLET_ALLOW_PRIVATE: 'true', OUTLET_POLL_MS: '10' });
  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, { method, headers: service.headers, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
  };
  const message = (n: number) => ({ order_id: `O-${n}`, customer: `C-${n % 1000}`, total: 1000 + n, lines: [{ sku: `S-${n % 50}`, qty: 1 }] });
  const mds: number[] = [];
  const bare: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const target = (await api('POST', '/api/datatargets/', { datatarget_type: 'messages', name: `bench ${rep}` })).datatarget;
    for (let i = 0; i < MESSAGES; i += 10_000) await api('POST', `/api/datatargets/${target.id}/post/`, { messages: Array.from({ length: Math.min(10_000, MESSAGES - i) }, (_, j) => message(i + j + 1)) });
    const outlet = (await api('POST', `/api/datatargets/${target.id}/outlets/`, {
      outlet_type: 'webhook', secret: 'whsec_' + Buffer.from('bench signing key 0123456789abcdef').toString('base64'),
      request: { url, method: 'POST', headers: { 'X-Api-Key': 'k' }, format: 'json', content: { messages: '{(data)}' }, is_batched: true },
    })).outlet;
    // The outlet worker, from the moment it starts to the moment the last batch is recorded.
    const worker = new DeliveryWorker(service.runtime, service.runtime.config.outlets, service.runtime.logger);
    let t = process.hrtime.bigint();
    await worker.start();
    for (;;) {
      const [last] = await service.runtime.store.readStream(outletStream(outlet.id), { direction: 'backwards', limit: 1 });
      if (outletStateOf(last).last_delivered_message_number === MESSAGES) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    mds.push(MESSAGES / (Number(process.hrtime.bigint() - t) / 1e9));
    await worker.stop();
    // Baseline: the same batches, the same body shape, posted one after another with undici.
    const before = received;
    t = process.hrtime.bigint();
    for (let i = 0; i < MESSAGES; i += BATCH) {
      const body = JSON.stringify({ messages: Array.from({ length: Math.min(BATCH, MESSAGES - i) }, (_, j) => message(i + j + 1)) });
      const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`baseline: ${res.statusCode}`);
    }
    bare.push(MESSAGES / (Number(process.hrtime.bigint() - t) / 1e9));
    if (received - before !== MESSAGES / BATCH) throw new Error('baseline lost requests');
  }
  console.log(`webhook delivery benchmark — ${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}, ${MESSAGES.toLocaleString('en')} messages in batches of ${BATCH}, median of ${REPS}`);
  console.log('| scenario | mds (messages/s) | bare undici loop (messages/s) | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(ratioRow('batched, signed, every attempt recorded', median(mds), median(bare)));
  await service.close();
  await new Promise((r) => receiver.close(r));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
