// Scenario 7: GET /api/data/customers/?limit=100 of `mds start` over N customers, loaded by
// autocannon in a separate process: p99 latency at a fixed 1,000 requests/s, and saturation
// throughput next to the same route answering from memory (a Fastify server in this process that
// serves the same body), in the same run.
import * as os from 'node:os';
import Fastify from 'fastify';
import { autocannon, importRates } from './bench-service';
import { startServiceProcess } from './service-process';

const TOTAL = Number(process.env.BENCH_RETRIEVAL_CUSTOMERS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);

async function main() {
  const service = await startServiceProcess();
  const customer = (n: number) => ({ external_id: `G-${n}`, email: `g.${n}@example.com`, first_name: `First${n}`, last_name: `Last${n}`, city: 'Helsinki', tags: ['vip'], ACME__tier: 'gold' });
  for (let i = 0; i < TOTAL; i += 100_000) {
    await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: Math.min(100_000, TOTAL - i) }, (_, j) => customer(i + j)), 1000);
  }
  const url = `http://127.0.0.1:${service.port}/api/data/customers/?limit=100`;
  const body = await (await fetch(url, { headers: service.headers })).text();
  const memory = Fastify({ logger: false });
  memory.get('/api/data/customers/', async (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
  await memory.listen({ port: 0, host: '127.0.0.1' });
  const memoryUrl = `http://127.0.0.1:${(memory.server.address() as { port: number }).port}/api/data/customers/?limit=100`;

  const atRate = await autocannon(url, service.headers, { seconds: SECONDS, rate: 1000, connections: 20 });
  const saturated = await autocannon(url, service.headers, { seconds: SECONDS, connections: 20 });
  const fromMemory = await autocannon(memoryUrl, service.headers, { seconds: SECONDS, connections: 20 });
  const f = (x: number) => Math.round(x).toLocaleString('en');
  console.log(`### Retrieval under load (scenario 7)\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; GET /api/data/customers/?limit=100 of \`mds start\` over ${TOTAL.toLocaleString('en')} customers; autocannon in a separate process, ${SECONDS} s per run, 20 connections; baseline: the same route answering the same body from memory (Fastify in the benchmark process).\n`);
  console.log('| measure | mds | from memory | ratio / target |');
  console.log('|---|---:|---:|---:|');
  console.log(`| p99 latency at 1,000 requests/s (ms) | ${atRate.p99} | | target ≤ 25 |`);
  console.log(`| saturation (requests/s) | ${f(saturated.average)} | ${f(fromMemory.average)} | ${(saturated.average / fromMemory.average).toFixed(2)} (floor 0.50) |`);
  console.log(`\nerrors / non-2xx: ${atRate.errors + saturated.errors} / ${atRate.non2xx + saturated.non2xx}\n`);
  await memory.close();
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
