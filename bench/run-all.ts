// `npm run bench`: every benchmark, each in a process of its own (the services they start are child
// processes too), its table printed as it finishes, all of them written to bench/RESULTS.md.
// `BENCH_SMOKE=1` runs them tiny and once (about a minute): a check that they work, not figures.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SMOKE = process.env.BENCH_SMOKE === '1';
const SMOKE_ENV = { BENCH_REPS: '1', BENCH_CUSTOMERS: '2000', BENCH_ACTIVITY: '2000', BENCH_MESSAGES: '1000', BENCH_APPEND_SCALE: '0.05', BENCH_REBUILD_CUSTOMERS: '5000', BENCH_RETRIEVAL_CUSTOMERS: '2000', BENCH_LOAD_SECONDS: '2', BENCH_CAMPAIGNS: '50', BENCH_CAMPAIGN_EVENTS: '5000', BENCH_CAMPAIGN_SALES: '2000', BENCH_FRESHNESS_SAMPLES: '3', BENCH_VALIDATION_ROUNDS: '20', BENCH_AUDIT_EVENTS: '20000', BENCH_AUDIT_CUSTOMERS: '2000', BENCH_AUDIT_PAGES: '10', BENCH_PERSONAL_CHUNKS: '5', BENCH_FORGET_CUSTOMERS: '2000', BENCH_AUTH_STATEMENTS: '200', BENCH_DATASYNC_CUSTOMERS: '2000', BENCH_BEFORE_AFTER_CUSTOMERS: '2000', BENCH_REPLICA_CUSTOMERS: '2000' };

const BENCHES = [
  { script: 'event-log-append.bench.js', scenario: '3' },
  { script: 'esdb-append.bench.js', scenario: 'EventStoreDB adapter, against a double' },
  { script: 'customer-import.bench.js', scenario: '1, 2, 5, 8' },
  { script: 'activity-import.bench.js', scenario: 'event and sales imports' },
  { script: 'outlet-delivery.bench.js', scenario: '6' },
  { script: 'before-after.bench.js', scenario: 'customer import and delivery against an earlier commit (issue [19])' },
  { script: 'projection-rebuild.bench.js', scenario: '4' },
  { script: 'retrieval.bench.js', scenario: '7' },
  { script: 'replica-retrieval.bench.js', scenario: 'retrieval from a read replica (issue [20])' },
  { script: 'authentication.bench.js', scenario: 'authentication and rate limits' },
  { script: 'campaign-statistics.bench.js', scenario: 'campaign statistics' },
  { script: 'record-validation.bench.js', scenario: 'validation' },
  { script: 'audit.bench.js', scenario: 'audit trail' },
  { script: 'personal-data.bench.js', scenario: 'personal data design' },
  { script: 'forgetting.bench.js', scenario: 'forgetting' },
  { script: 'datasync.bench.js', scenario: 'datasync datatargets' },
];

function run(script: string): Promise<{ code: number | null; out: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(__dirname, script)], { cwd: ROOT, env: { ...process.env, ...(SMOKE ? SMOKE_ENV : {}) }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('exit', (code) => resolve({ code, out, seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

/** The machine's busy share of CPU time over `ms` (from /proc/stat; 0 where there is none). */
async function busyShare(ms: number): Promise<number> {
  const sample = () => {
    try {
      const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
      const n = fields.map(Number);
      return { idle: n[3] + (n[4] ?? 0), total: n.reduce((a, b) => a + b, 0) };
    } catch {
      return { idle: 0, total: 0 };
    }
  };
  const a = sample();
  await new Promise((r) => setTimeout(r, ms));
  const b = sample();
  return b.total === a.total ? 0 : 1 - (b.idle - a.idle) / (b.total - a.total);
}

/**
 * Between benchmarks: the last one's files written out (`sync`) and the machine quiet (under 10% busy
 * for two seconds in a row, at most 60 s), so one benchmark's cleanup (a deleted database of millions
 * of rows, its dirty pages still being written) is not measured as part of the next.
 */
async function quiet(): Promise<number> {
  const started = Date.now();
  await new Promise((resolve) => spawn('sync', { stdio: 'ignore' }).on('exit', resolve).on('error', resolve));
  let calm = 0;
  while (calm < 2 && Date.now() - started < 60_000) calm = (await busyShare(1000)) < 0.1 ? calm + 1 : 0;
  return Math.round((Date.now() - started) / 1000);
}

async function main() {
  const sections: string[] = [];
  let failed = 0;
  for (const b of BENCHES) {
    if (!SMOKE && sections.length > 0) process.stderr.write(`(waited ${await quiet()} s for the machine to be quiet)\n`);
    process.stderr.write(`\n▶ ${b.script} (scenario ${b.scenario})${SMOKE ? ', smoke' : ''}\n`);
    const { code, out, seconds } = await run(b.script);
    if (code !== 0) failed++;
    sections.push(code === 0 ? `${out.trim()}\n\n_${seconds} s_` : `### ${b.script}\n\nfailed (exit ${code}); see the console output.`);
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const header = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\`${SMOKE ? ' in smoke mode (tiny sizes, one repetition: not figures to quote)' : ''} on ${new Date().toISOString()}.`,
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, ${os.type()} ${os.release()}; Node ${process.version}; marketing-data-service ${pkg.version}.`,
    'Each table compares the service with a baseline measured in the same run on the same PostgreSQL; figures are medians of the repetitions.',
    '',
  ].join('\n');
  const target = path.join(ROOT, 'bench', SMOKE ? 'RESULTS.smoke.md' : 'RESULTS.md');
  // What profiling found is kept by hand beside the benchmarks and goes out with every run's figures.
  const findings = path.join(ROOT, 'bench', 'FINDINGS.md');
  const found = fs.existsSync(findings) ? `\n\n${fs.readFileSync(findings, 'utf8').trim()}` : '';
  fs.writeFileSync(target, `${header}\n${sections.join('\n\n')}${found}\n`);
  process.stderr.write(`\nwrote ${path.relative(ROOT, target)}\n`);
  if (failed > 0) process.exit(1);
}

void main();
