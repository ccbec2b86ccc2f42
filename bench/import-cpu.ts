// CPU per 1,000 customers imported, by process: the service, and each PostgreSQL backend by its
// application_name (the customers projection, the appends' pool, the other projections), for this
// checkout and an earlier commit (BENCH_BEFORE_REF, default 25a32dc) built beside it, alternating.
// Read from /proc, so it counts every thread and the kernel's share, which a CPU profile does not.
// The figures behind ADR 15; a diagnostic for bench/FINDINGS.md, not part of `npm run bench`:
//   npm run build && node dist/bench/import-cpu.js
// Linux only. With DATABASE_URL the server must be on this machine (its backends are read from /proc).
import * as fs from 'node:fs';
import { importRates } from './bench-service';
import { runAgainstBefore } from './before-after.bench';
import { startServiceProcess, type ServiceProcess } from './service-process';

const CUSTOMERS = Number(process.env.BENCH_CPU_CUSTOMERS ?? 50_000);
const CLIENTS = Number(process.env.BENCH_CPU_CLIENTS ?? 1);
const REPS = Number(process.env.BENCH_CPU_REPS ?? 2);
const TICKS_PER_S = 100; // USER_HZ on Linux

const customer = (n: number, prefix: string) => ({
  external_id: `${prefix}-${n}`, email: `${prefix}.${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`,
  first_name: `First${n}`, last_name: `Last${n}`, city: 'Helsinki', zip_code: '00100', country: 'FI', can_email: n % 2 === 0,
  date_joined: '2024-03-01T10:00:00Z', tags: ['vip', `t${n % 10}`], ACME__tier: 'gold', shop_id: 'web',
});

/** utime + stime of a process in ms (0 once it is gone). */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

const postgresPids = (): number[] =>
  fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/comm`, 'utf8').startsWith('postgres');
      } catch {
        return false;
      }
    })
    .map(Number);

async function measure(root: string, label: string): Promise<void> {
  const service: ServiceProcess = await startServiceProcess({}, root);
  try {
    // A warm-up, so every projection's backend is connected and named before the count starts.
    await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: 5000 }, (_, n) => customer(n, 'W')), 1000, CLIENTS);
    const { rows } = await service.copyClient.query<{ pid: number; role: string }>(
      `SELECT pid, coalesce(nullif(application_name, ''), backend_type) AS role FROM pg_stat_activity`,
    );
    const roles = new Map(rows.map((r) => [r.pid, r.role]));
    const pids = postgresPids();
    const before = new Map(pids.map((p) => [p, cpuMs(p)]));
    const serviceBefore = cpuMs(service.pid);
    const rates = await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: CUSTOMERS }, (_, n) => customer(n, 'M')), 1000, CLIENTS);
    const k = CUSTOMERS / 1000;
    const byRole = new Map<string, number>();
    for (const p of pids) {
      const role = roles.get(p) ?? 'other';
      byRole.set(role, (byRole.get(role) ?? 0) + cpuMs(p) - (before.get(p) ?? 0));
    }
    const postgres = [...byRole.values()].reduce((a, b) => a + b, 0);
    const service_ = cpuMs(service.pid) - serviceBefore;
    const roleList = [...byRole].filter(([, ms]) => ms / k >= 0.3).sort((a, b) => b[1] - a[1]);
    console.log(
      `| ${label} | ${Math.round(rates.readable).toLocaleString('en')} | ${(service_ / k).toFixed(1)} | ${(postgres / k).toFixed(1)} | ${((service_ + postgres) / k).toFixed(1)} | ` +
        `${roleList.map(([role, ms]) => `${role} ${(ms / k).toFixed(1)}`).join(', ')} |`,
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
