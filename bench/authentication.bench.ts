// What authenticating a request costs: `mds start` answering an authenticated request that does
// nothing else (an unknown path: the token is checked, counted, then 404), with the rate limit off
// and on, loaded by autocannon in a process of its own; and the one statement a request costs in
// PostgreSQL (token look-up and the shared rate-limit count) next to a bare `SELECT 1` round trip.
import * as os from 'node:os';
import { Client } from 'pg';
import { autocannon, type Load } from './bench-service';
import { startServiceProcess } from './service-process';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const STATEMENTS = Number(process.env.BENCH_AUTH_STATEMENTS ?? 5000);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function load(rateLimit: string): Promise<{ saturated: Load; atRate: Load; statement?: { auth: number; select1: number } }> {
  const service = await startServiceProcess({ MDS_RATE_LIMIT_PER_MINUTE: rateLimit });
  try {
    const url = `http://127.0.0.1:${service.port}/api/nothing/`;
    const probe = await fetch(url, { headers: service.headers });
    if (probe.status !== 404) throw new Error(`expected 404 from ${url}, got ${probe.status}`);
    const saturated = await autocannon(url, service.headers, { seconds: SECONDS, connections: 20 });
    const atRate = await autocannon(url, service.headers, { seconds: SECONDS, rate: 1000, connections: 20 });
    // The statement alone, one after another on one connection (a round trip each), when the build has it.
    let statement: { auth: number; select1: number } | undefined;
    const projections = (await import('#mds/projections')) as Record<string, unknown>;
    const authenticate = projections.authenticateToken as ((pool: Client, hash: string, perMinute: number) => Promise<unknown>) | undefined;
    if (authenticate) {
      const { hashAccessToken } = await import('#mds/access');
      const hash = hashAccessToken(service.headers.authorization.slice('Bearer '.length));
      const time = async (fn: () => Promise<unknown>) => {
        for (let i = 0; i < 200; i++) await fn();
        const t = process.hrtime.bigint();
        for (let i = 0; i < STATEMENTS; i++) await fn();
        return Number(process.hrtime.bigint() - t) / 1e3 / STATEMENTS;
      };
      statement = { auth: await time(() => authenticate(service.copyClient, hash, Number(rateLimit))), select1: await time(() => service.copyClient.query('SELECT 1')) };
    }
    return { saturated, atRate, statement };
  } finally {
    await service.close();
  }
}

async function main() {
  const runs: Record<string, Array<Awaited<ReturnType<typeof load>>>> = { off: [], on: [] };
  // Alternating, so a drift of the machine touches both alike.
  for (let rep = 0; rep < REPS; rep++) {
    runs.off.push(await load('0'));
    runs.on.push(await load('10000000'));
  }
  const f = (x: number) => Math.round(x).toLocaleString('en');
  const rate = (k: string) => median(runs[k].map((r) => r.saturated.average));
  const p = (k: string, q: 'p50' | 'p99') => median(runs[k].map((r) => r.atRate[q]));
  console.log(
    `### Authentication\n\n${os.cpus().length} cores, Node ${process.version}; \`mds start\` answering an authenticated GET of an unknown path (token look-up, rate-limit count, 404), autocannon in a separate process, ${SECONDS} s per run, 20 connections; medians of ${REPS} alternating runs.\n`,
  );
  console.log('| rate limit | saturation (requests/s) | p50 / p99 at 1,000 requests/s (ms) |');
  console.log('|---|---:|---:|');
  console.log(`| off (\`MDS_RATE_LIMIT_PER_MINUTE=0\`) | ${f(rate('off'))} | ${p('off', 'p50')} / ${p('off', 'p99')} |`);
  console.log(`| on, counted in PostgreSQL | ${f(rate('on'))} | ${p('on', 'p50')} / ${p('on', 'p99')} |`);
  console.log(`\nPer request, counting costs ${(1e6 / rate('on') - 1e6 / rate('off')).toFixed(0)} µs of the machine at saturation.`);
  const statements = runs.on.map((r) => r.statement).filter((s) => s !== undefined);
  if (statements.length > 0) {
    const auth = median(statements.map((s) => s.auth));
    const select1 = median(statements.map((s) => s.select1));
    const off = median(runs.off.map((r) => r.statement!.auth));
    console.log(
      `The authentication statement, ${STATEMENTS.toLocaleString('en')} in a row on one connection: ${auth.toFixed(0)} µs with the count, ${off.toFixed(0)} µs without (look-up only), against ${select1.toFixed(0)} µs for \`SELECT 1\`.`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
