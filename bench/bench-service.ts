import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** Rows per second of a COPY (CSV) of these lines into `table`, emptied afterwards. */
export async function copyRate(client: Client, table: string, lines: string[]): Promise<number> {
  const t = process.hrtime.bigint();
  await pipeline(Readable.from(lines), client.query(copyFrom(`COPY ${table} FROM STDIN WITH (FORMAT csv)`)));
  const rate = lines.length / (Number(process.hrtime.bigint() - t) / 1e9);
  await client.query(`TRUNCATE ${table}`);
  return rate;
}

export const csvLine = (values: unknown[]) => values.map((v) => `"${String(v).replace(/"/g, '""')}"`).join(',') + '\n';

/**
 * Imports `records` through `path` in requests of `perRequest` (body `{key: [...]}`), one request after
 * another as a plugin does; returns records/s when all were accepted and when the last run completed.
 */
export async function importRates(service: { port: number; headers: Record<string, string>; copyClient: Client }, path: string, key: string, records: unknown[], perRequest: number, concurrency = 1): Promise<{ accepted: number; readable: number }> {
  // The bodies are serialised before the clock starts, as the COPY baselines' rows are.
  const bodies: string[] = [];
  for (let i = 0; i < records.length; i += perRequest) bodies.push(JSON.stringify({ [key]: records.slice(i, i + perRequest) }));
  const t = process.hrtime.bigint();
  const runs: string[] = [];
  let next = 0;
  const client = async () => {
    while (next < bodies.length) {
      const requestBody = bodies[next++];
      const res = await fetch(`http://127.0.0.1:${service.port}${path}`, { method: 'POST', headers: service.headers, body: requestBody });
      const body = (await res.json()) as { run_id: string; rejected: number };
      if (res.status !== 200 || body.rejected !== 0) throw new Error(`import failed: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
      runs.push(body.run_id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  const accepted = records.length / (Number(process.hrtime.bigint() - t) / 1e9);
  // Readable when the run appended last is completed (read models pass the log in order). With
  // concurrent requests the last answer need not be the last append: the log says which is.
  let lastRun = runs[runs.length - 1];
  if (concurrency > 1) {
    const { rows } = await service.copyClient.query<{ stream: string }>(`SELECT stream FROM mds_events WHERE stream = ANY($1) ORDER BY position DESC LIMIT 1`, [runs.map((r) => `import-${r}`)]);
    lastRun = rows[0].stream.slice('import-'.length);
  }
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${service.port}/api/runs/${lastRun}/`, { headers: service.headers });
    if (((await res.json()) as { state: string }).state === 'completed') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { accepted, readable: records.length / (Number(process.hrtime.bigint() - t) / 1e9) };
}

/** One line of the side-by-side table. */
export function ratioRow(scenario: string, mds: number, baseline: number): string {
  const f = (x: number) => Math.round(x).toLocaleString('en');
  return `| ${scenario} | ${f(mds)} | ${f(baseline)} | ${(mds / baseline).toFixed(2)} |`;
}

const AUTOCANNON = path.resolve(__dirname, '../../node_modules/autocannon/autocannon.js');

export interface Load {
  p50: number;
  p99: number;
  average: number;
  errors: number;
  non2xx: number;
}

/** autocannon in a process of its own against `url` for `seconds`, optionally at a fixed `rate`. */
export function autocannon(url: string, headers: Record<string, string>, options: { seconds: number; connections: number; rate?: number }): Promise<Load> {
  const args = [AUTOCANNON, '--json', '-d', String(options.seconds), '-c', String(options.connections), ...(options.rate ? ['-R', String(options.rate)] : [])];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      const r = JSON.parse(out) as { latency: { p50: number; p99: number }; requests: { average: number }; errors: number; non2xx: number };
      resolve({ p50: r.latency.p50, p99: r.latency.p99, average: r.requests.average, errors: r.errors, non2xx: r.non2xx });
    });
  });
}
