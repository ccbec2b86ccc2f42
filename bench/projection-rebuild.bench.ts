// Scenario 4: rebuilding the customers projection (`mds projections rebuild customers`, as an
// operator runs it) from N imported customers, next to a plain loop that reads the same events by
// position (each with its personal-data list) and upserts them with one statement per page, in the
// same run on the same PostgreSQL.
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { median } from './bench-database';
import { importRates, ratioRow } from './bench-service';
import { startServiceProcess } from './service-process';

const TOTAL = Number(process.env.BENCH_REBUILD_CUSTOMERS ?? 1_000_000);
const REPS = Number(process.env.BENCH_REPS ?? 3);
const PAGE = 20; // chunks (of 1,000 records) per page, as the projection reads them

function rebuild(env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/mds.js'), 'projections', 'rebuild', 'customers'], { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`rebuild exited with ${code}`))));
  });
}

async function main() {
  const service = await startServiceProcess();
  const customer = (n: number) => ({
    external_id: `R-${n}`, email: `r.${n}@example.com`, phone_number: `+35840${String(n).padStart(7, '0')}`, first_name: `First${n}`, last_name: `Last${n}`,
    city: 'Helsinki', zip_code: '00100', country: 'FI', can_email: n % 2 === 0, tags: ['vip', `t${n % 10}`], ACME__tier: 'gold',
  });
  for (let i = 0; i < TOTAL; i += 100_000) {
    await importRates(service, '/api/customers/upload/', 'customers', Array.from({ length: Math.min(100_000, TOTAL - i) }, (_, j) => customer(i + j)), 1000);
  }
  const c = service.copyClient;
  await c.query('CREATE TABLE scratch_customers (external_id text PRIMARY KEY, data jsonb NOT NULL)');
  // Settle the database after the import (autovacuum would otherwise work through the new rows
  // during the first measurement), and alternate which side goes first.
  await c.query('VACUUM ANALYZE');
  await c.query('CHECKPOINT');
  const ours: number[] = [];
  const plain: number[] = [];
  const measureOurs = async () => {
    const t = process.hrtime.bigint();
    await rebuild({ DATABASE_URL: service.db.url });
    ours.push(TOTAL / (Number(process.hrtime.bigint() - t) / 1e9));
  };
  for (let rep = 0; rep < REPS; rep++) {
    if (rep % 2 === 0) await measureOurs();
    // Baseline: the same events by position, one upsert per page of chunks, each record with its
    // personal fields back from its chunk's list beside the log (the customers' documents whole, as
    // the read model must hold them; without them the loop would write customers without e-mails or names).
    await c.query('TRUNCATE scratch_customers');
    const t = process.hrtime.bigint();
    for (let after = 0; ; ) {
      const { rows } = await c.query<{ position: number; data: unknown; personal: unknown }>(
        `SELECT e.position, e.data, p.records AS personal FROM mds_events e LEFT JOIN mds_personal_data p ON p.event_id = e.id
          WHERE e.type = 'CustomersImported' AND e.position > $1 ORDER BY e.position LIMIT ${PAGE}`,
        [after],
      );
      if (rows.length === 0) break;
      after = Number(rows[rows.length - 1].position);
      await c.query(
        `INSERT INTO scratch_customers (external_id, data)
         SELECT DISTINCT ON (r->>'external_id') r->>'external_id', r
           FROM jsonb_array_elements($1::jsonb) AS c(chunk)
           CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(x.pd) = 'object' THEN x.r || x.pd ELSE x.r END AS r, x.n
                                 FROM ROWS FROM (jsonb_array_elements(c.chunk->'data'->'records'), jsonb_array_elements(c.chunk->'personal')) WITH ORDINALITY AS x(r, pd, n)) z
          ORDER BY r->>'external_id', n DESC
         ON CONFLICT (external_id) DO UPDATE SET data = scratch_customers.data || excluded.data`,
        [JSON.stringify(rows)],
      );
    }
    plain.push(TOTAL / (Number(process.hrtime.bigint() - t) / 1e9));
    const whole = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM scratch_customers WHERE data ? 'email' AND data ? 'first_name'`)).rows[0].n;
    if (whole !== TOTAL) throw new Error(`the plain loop wrote ${whole} whole customers of ${TOTAL}`);
    if (rep % 2 === 1) await measureOurs();
  }
  console.log(`### Projection rebuild (scenario 4)\n\n${os.cpus().length} cores, Node ${process.version}, PostgreSQL ${service.db.serverVersion}; the customers projection rebuilt from ${TOTAL.toLocaleString('en')} imported customers by \`mds projections rebuild customers\` (a new generation beside the live one, then the switch), median of ${REPS}; baseline: a plain loop reading the same events by position, each with its personal-data list, and upserting each page of ${PAGE} chunks with one statement, the records' personal fields zipped back.\n`);
  console.log('| scenario | mds (records/s) | plain loop (records/s) | ratio |');
  console.log('|---|---:|---:|---:|');
  console.log(ratioRow('4. customers projection rebuild (records/s)', median(ours), median(plain)));
  console.log('');
  await service.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
