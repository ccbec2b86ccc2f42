import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, ROOT, runCli } from '../support/processes';

// Fault test: `mds start` (the embedded PostgreSQL's path) on a data directory it cannot use stops at
// once with a message naming the directory and the fix, and a non-zero exit. Real file systems: small
// and read-only tmpfs mounts, and a run as another user; mounting needs root, which CI has.
const root = process.getuid?.() === 0;
const run = root ? describe : describe.skip;

run(`a data directory the service cannot use${root ? '' : ' (skipped: needs root to mount file systems)'}`, () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-datadir-'));
  fs.chmodSync(base, 0o755); // another user may reach what is inside
  const mounts: string[] = [];
  const mount = (name: string, options: string) => {
    const dir = path.join(base, name);
    fs.mkdirSync(dir);
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
    mounts.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of mounts) execFileSync('umount', [dir]);
    fs.rmSync(base, { recursive: true, force: true });
  });
  const start = (env: Record<string, string>) => runCli(['start'], { DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env }, 60_000);

  it('refuses a full file system, naming the directory and the free space', async () => {
    const dir = mount('full', 'size=8m');
    const res = await start({ MDS_DATA_DIR: dir });
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toMatch(new RegExp(`^mds: MDS_DATA_DIR ${dir} has [\\d.]+ MiB free, less than the 64 MiB the embedded PostgreSQL needs: free space there, or set MDS_DATA_DIR to another directory$`));
  });

  it('refuses a read-only file system', async () => {
    const dir = mount('readonly', 'ro,size=128m');
    const res = await start({ MDS_DATA_DIR: path.join(dir, 'data') });
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toBe(`mds: MDS_DATA_DIR ${path.join(dir, 'data')} is on a read-only file system (creating it): mount it read-write, or set MDS_DATA_DIR to another directory`);
  });

  it("refuses a directory another user owns, saying whose it is and who this is", async () => {
    const dir = path.join(base, 'owned');
    fs.mkdirSync(dir, { mode: 0o700 });
    // The service as the unprivileged user nobody, on a directory only root may write.
    const out = (() => {
      try {
        execFileSync('runuser', ['-u', 'nobody', '--', 'env', `MDS_DATA_DIR=${dir}`, 'DATABASE_URL=', 'PORT=0', 'LOG_LEVEL=warn', process.execPath, CLI, 'start'], { cwd: ROOT, stdio: 'pipe', timeout: 60_000 });
        return { code: 0, stderr: '' };
      } catch (err) {
        const e = err as { status: number | null; stderr: Buffer };
        return { code: e.status, stderr: e.stderr.toString() };
      }
    })();
    expect(out.code).not.toBe(0);
    expect(out.stderr.trim()).toBe(
      `mds: MDS_DATA_DIR ${dir} is not writable by nobody (uid ${execFileSync('id', ['-u', 'nobody']).toString().trim()}); it belongs to uid 0 (writing a file there): give this user write access (chown or chmod it), or set MDS_DATA_DIR to another directory`,
    );
  });
});
