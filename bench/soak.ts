// `npm run soak`: ten minutes (SOAK_SECONDS) of mixed load at 70% (SOAK_LOAD) of the measured maximum:
// customer imports, retrieval pages, datatarget posts, and the webhook deliveries those posts cause to a
// local receiver. Prints, every minute, the window's p50/p99 latency per kind of request, the errors and
// the service's memory (RSS), then whether p99 and RSS stayed flat (last minute against the second).
// Not part of `npm test` or `npm run bench`: it takes the machine for ten minutes.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import * as os from 'node:os';
import { startServiceProcess } from './service-process';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const LOAD = Number(process.env.SOAK_LOAD ?? 0.7);
const CALIBRATE_SECONDS = Number(process.env.SOAK_CALIBRATE_SECONDS ?? 20);
const WINDOW_MS = Math.min(60_000, (SECONDS * 1000) / 5);

type Kind = 'import' | 'read' | 'post';
const MIX: Kind[] = ['import', 'import', 'read', 'read', 'read', 'read', 'post', 'post'];
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] : 0);

async function main() {
  let delivered = 0; // webhook requests the receiver answered
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered++;
      res.writeHead(200).end();
    });
  }).listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  const receiverPort = (receiver.address() as { port: number }).port;
  const service = await startServiceProcess({ OUTLET_ALLOW_PRIVATE: 'true' });
  const base = `http://127.0.0.1:${service.port}`;
  const headers = { ...service.headers, 'content-type': 'application/json' };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Record<string, any>;
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json).slice(0, 200)}`);
    return json;
  };
  const target = (await call('POST', '/api/datatargets/', { datatarget_type: 'messages', name: 'soak' })).datatarget.id as string;
  await call('POST', `/api/datatargets/${target}/outlets/`, { outlet_type: 'webhook', max_batch_size: 100, request: { url: `http://127.0.0.1:${receiverPort}/hook`, method: 'POST', format: 'json', content: '{(data)}', is_batched: true } });
  let n = 0;
  const ops: Record<Kind, () => Promise<unknown>> = {
    import: () => call('POST', '/api/customers/upload/', { customers: Array.from({ length: 100 }, (_, i) => ({ external_id: `S-${n++ % 200_000}`, email: `s${i}-${n}@example.com`, first_name: `Soak ${n}`, tags: ['soak'] })) }),
    read: () => call('GET', `/api/data/customers/?limit=100${Math.random() < 0.5 ? '' : `&external_id=S-${Math.floor(Math.random() * Math.max(1, Math.min(n, 200_000)))}`}`),
    post: () => call('POST', `/api/datatargets/${target}/post/`, { messages: Array.from({ length: 50 }, (_, i) => ({ n: i, at: Date.now() })) }),
  };
  const rss = () => Number(execFileSync('ps', ['-o', 'rss=', '-p', String(service.pid)]).toString().trim()) / 1024;

  // The maximum: the mix closed-loop with 8 clients.
  let done = 0;
  const calibrateUntil = Date.now() + CALIBRATE_SECONDS * 1000;
  await Promise.all(Array.from({ length: 8 }, async (_, c) => {
    for (let i = c; Date.now() < calibrateUntil; i++) {
      await ops[MIX[i % MIX.length]]().catch(() => undefined);
      done++;
    }
  }));
  const maximum = done / CALIBRATE_SECONDS;
  const rate = maximum * LOAD;
  console.log(`### Soak: ${SECONDS} s at ${Math.round(LOAD * 100)}% of the maximum\n\n${os.cpus().length} cores, Node ${process.version}. Maximum of the mix (${MIX.join(', ')}; imports of 100 customers, pages of 100, posts of 50 messages delivered to a local webhook) with 8 clients: ${maximum.toFixed(0)} requests/s; soak at ${rate.toFixed(0)} requests/s, sent on a schedule (open loop).\n`);
  console.log('| minute | requests | errors | import p50/p99 ms | read p50/p99 ms | post p50/p99 ms | webhook requests | service RSS MiB |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');

  const windows: Array<{ p99: number; rss: number }> = [];
  let window: Record<Kind, number[]> = { import: [], read: [], post: [] };
  let errors = 0;
  let sent = 0;
  const started = Date.now();
  let windowStart = started;
  const inFlight = new Set<Promise<void>>();
  while (Date.now() - started < SECONDS * 1000) {
    const due = started + (sent / rate) * 1000;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const kind = MIX[sent++ % MIX.length];
    const t0 = performance.now();
    const p = ops[kind]()
      .then(() => void window[kind].push(performance.now() - t0))
      .catch(() => void errors++)
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
    if (Date.now() - windowStart >= WINDOW_MS) {
      const all = [...window.import, ...window.read, ...window.post];
      const memory = rss();
      windows.push({ p99: pct(all, 99), rss: memory });
      const f = (xs: number[]) => `${pct(xs, 50).toFixed(0)}/${pct(xs, 99).toFixed(0)}`;
      console.log(`| ${windows.length} | ${all.length} | ${errors} | ${f(window.import)} | ${f(window.read)} | ${f(window.post)} | ${delivered} | ${memory.toFixed(0)} |`);
      window = { import: [], read: [], post: [] };
      windowStart = Date.now();
    }
  }
  await Promise.all(inFlight);
  const second = windows[1] ?? windows[0];
  const last = windows[windows.length - 1];
  console.log(`\nSent ${sent} requests, ${errors} errors. p99 ${second.p99.toFixed(0)} → ${last.p99.toFixed(0)} ms and RSS ${second.rss.toFixed(0)} → ${last.rss.toFixed(0)} MiB from the second window to the last; peak RSS ${service.peakRssMiB().toFixed(0)} MiB.`);
  await service.close();
  receiver.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
