import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTestDatabase, eventLogEnv, type TestDatabase } from '../support/database';
import { eventually } from '../support/eventually';
import { freePort, ROOT, startCli } from '../support/processes';

/**
 * The README's quick start, run as written: the service is started the way its first block says
 * (`mds start` with that block's settings, on a test database and a free port), then every block
 * marked `<!-- quickstart -->` runs in `bash -e`, in order, from the clone. The only things set from
 * outside are the variables the README itself defaults (`MDS`, `HOOK_PORT`) and where the service's
 * database is, which the `mds` commands read as `npm start` does.
 */
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

function blocks(marker: string): string[] {
  const re = new RegExp(`^<!-- ${marker} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\`$`, 'gm');
  return [...README.matchAll(re)].map((m) => m[1]);
}

/** `A=1 B='two words' npm start` → {A: '1', B: 'two words'}. */
function startSettings(line: string): Record<string, string> {
  const m = /^((?:\w+=(?:'[^']*'|\S+)\s+)+)npm start$/.exec(line.trim());
  if (!m) throw new Error(`the quick start's first block should be "NAME=value … npm start", not: ${line}`);
  return Object.fromEntries([...m[1].matchAll(/(\w+)=(?:'([^']*)'|(\S+))/g)].map((a) => [a[1], a[2] ?? a[3]]));
}

interface BlockRun {
  code: number | null;
  output: string;
}

describe('the README quick start', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-quickstart-'));
  const state = path.join(work, 'state.sh');
  const groups: number[] = [];
  let db: TestDatabase;
  let service: ReturnType<typeof startCli> | undefined;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    db = await createTestDatabase();
    const [port, hookPort] = [await freePort(), await freePort()];
    const dataDir = path.join(work, 'data');
    const start = blocks('quickstart: start');
    expect(start).toHaveLength(1);
    const where = { DATABASE_URL: db.url, MDS_DATA_DIR: dataDir, ...eventLogEnv(db.url) };
    service = startCli(['start'], { ...startSettings(start[0]), ...where, PORT: String(port), HOST: '127.0.0.1', LOG_FORMAT: 'json' });
    await eventually(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        if (res.status !== 200) throw new Error(`health ${res.status}`);
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    ).catch((err) => {
      throw new Error(`${(err as Error).message}\n${service!.output()}`);
    });
    // TMPDIR: the README's `mktemp -d` lands in this test's folder, removed with it.
    env = { ...process.env, EVENTSTORE_URL: undefined, ...where, MDS: `http://127.0.0.1:${port}`, HOOK_PORT: String(hookPort), TMPDIR: work };
    fs.writeFileSync(state, '');
  }, 120_000);

  afterAll(async () => {
    for (const pid of groups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await db?.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }, 60_000);

  /**
   * One block in `bash -e`, its shell variables and functions carried to the next block as a reader's
   * shell would keep them. Output goes to a file: a block may leave a process in the background.
   */
  function run(block: string, n: number): Promise<BlockRun> {
    const script = [
      '__before=$(compgen -v | sort)',
      `source '${state}'`,
      block,
      `{ comm -13 <(echo "$__before") <(compgen -v | sort) | grep -vx __before | while read -r v; do declare -p "$v"; done; declare -f; } > '${state}.new'`,
      `mv '${state}.new' '${state}'`,
    ].join('\n');
    const log = path.join(work, `block-${n}.log`);
    const fd = fs.openSync(log, 'w');
    return new Promise((resolve) => {
      const child = spawn('bash', ['-e', '-c', script], { cwd: ROOT, env, stdio: ['ignore', fd, fd], detached: true });
      fs.closeSync(fd);
      groups.push(child.pid!);
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 120_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output: fs.readFileSync(log, 'utf8') });
      });
    });
  }

  it('runs every block as written, with the outcomes it promises', async () => {
    const steps = blocks('quickstart');
    expect(steps.length).toBeGreaterThanOrEqual(10);
    const outputs: string[] = [];
    for (const [n, block] of steps.entries()) {
      const { code, output } = await run(block, n);
      if (code !== 0) throw new Error(`quick start block ${n + 1} exited ${code}:\n${block}\n--- output ---\n${output}\n--- service ---\n${service!.output().slice(-5000)}`);
      outputs.push(output);
    }
    const all = outputs.join('\n');
    // A token, a partial import with its error, its run completed, and paging to the end.
    expect(all).toMatch(/^mds_\w+$/m);
    expect(all).toContain('"accepted":3,"rejected":1');
    expect(all).toMatch(/"kind":"customers","state":"completed"/);
    expect(all).toContain('"next_url":null');
    // Sales totals and the campaign's figures.
    expect(all).toContain('"sale_total":18380');
    expect(all).toMatch(/"audience_size" ?: ?2/);
    expect(all).toMatch(/"sales_for_conversion" ?: ?1/);
    // The webhook arrived signed, and the library verified it.
    expect(all).toMatch(/"webhook-signature":"v1,/);
    expect(all).toMatch(/^signature verified: msg_/m);
    // Forgotten, exported and verified with the public key, rebuilt.
    expect(all).toContain('{"is_forgotten": true}');
    expect(all).toMatch(/log\.jsonl: ok, \d+ events, chain head [0-9a-f]{64}; signed by key/);
    expect(all).toMatch(/^rebuilt customers: generation \d+ is live/m);
  }, 300_000);
});
