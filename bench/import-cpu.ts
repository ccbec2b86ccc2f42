// CPU per 1,000 customers imported, by process: the service, and each PostgreSQL backend by its
// application_name (the customers projection, the appends' pool, the other projections), for this
// checkout and an earlier commit (BENCH_BEFORE_REF, default 25a32dc) built beside it, alternating.
// Read from /proc, so it counts every thread and the kernel's share, which a CPU profile does not.
// The figures behind ADR 15; a diagnostic for bench/FINDINGS.md, not part of `npm run bench`:
//   npm run build && node dist/bench/import-cpu.js
// Linux only. With DATABASE_URL the server must be on this machine (its backends are read from /proc).
import { importRates } from './bench-service';
import { benchCustomer, runAgainstBefore } from './before-after.bench';
import { cpuOf } from './proc-cpu';
import { startServiceProcess, type ServiceProcess } from './service-process';

const CUSTOMERS = Number(process.env.BENCH_CPU_CUSTOMERS ?? 50_000);
const CLIENTS = Number(process.env.BENCH_CPU_CLIENTS ?? 1);
const REPS = Number(process.env.BENCH_CPU_REPS ?? 2);

async function measure(root: string, label: string): Promise<void> {
  const service: ServiceProcess = await startServiceProcess({}, root);
  try {
    // A warm-up, so every projection's backend is connected and named before the count starts.
    await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: 5000 }, (_, n) => benchCustomer('W', n)), 1000, CLIENTS);
    const { rows } = await service.copyClient.query<{ pid: number; role: string }>(
      `SELECT pid, coalesce(nullif(application_name, ''), backend_type) AS role FROM pg_stat_activity`,
    );
    // This server's backends, as it lists them (so no other PostgreSQL on the machine is counted).
    const before = new Map(rows.map((r) => [r.pid, cpuOf(r.pid)]));
    const serviceBefore = cpuOf(service.pid);
    const rates = await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: CUSTOMERS }, (_, n) => benchCustomer('M', n)), 1000, CLIENTS);
    const msPer1000 = (us: number) => us / 1000 / (CUSTOMERS / 1000);
    const serviceMs = msPer1000(cpuOf(service.pid) - serviceBefore);
    const byRole = new Map<string, number>();
    for (const { pid, role } of rows) byRole.set(role, (byRole.get(role) ?? 0) + msPer1000(Math.max(0, cpuOf(pid) - before.get(pid)!)));
    const postgres = [...byRole.values()].reduce((a, b) => a + b, 0);
    const roleList = [...byRole].filter(([, ms]) => ms >= 0.3).sort((a, b) => b[1] - a[1]);
    console.log(
      `| ${label} | ${Math.round(rates.readable).toLocaleString('en')} | ${serviceMs.toFixed(1)} | ${postgres.toFixed(1)} | ${(serviceMs + postgres).toFixed(1)} | ` +
        `${roleList.map(([role, ms]) => `${role} ${ms.toFixed(1)}`).join(', ')} |`,
    );
  } finally {
    await service.close();
  }
}

if (require.main === module) {
  runAgainstBefore(async (before, root) => {
    console.log(`\n${CUSTOMERS.toLocaleString('en')} customers, ${CLIENTS} client(s), ms of CPU per 1,000 customers (/proc):\n`);
    console.log('| build | end to end (records/s) | service | PostgreSQL | in all | PostgreSQL by backend |');
    console.log('|---|---:|---:|---:|---:|---|');
    for (let rep = 0; rep < REPS; rep++) {
      const runs: Array<[string, string]> = [[before.root, `commit ${before.commit}`], [root, 'this checkout']];
      for (const [dir, label] of rep % 2 === 0 ? runs : runs.reverse()) await measure(dir, label);
    }
  });
}
