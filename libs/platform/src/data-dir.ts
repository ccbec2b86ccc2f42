import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatSize } from './config';

/** Room the embedded PostgreSQL needs to initialise and start (a cluster is ~40 MiB, its WAL 16 MiB a segment). */
export const MIN_DATA_DIR_FREE = 64 * 1024 ** 2;

export class DataDirError extends Error {
  override name = 'DataDirError';
}

const who = () => {
  const user = (() => {
    try {
      return os.userInfo().username;
    } catch {
      return `uid ${process.getuid?.()}`;
    }
  })();
  return `${user} (uid ${process.getuid?.() ?? '?'})`;
};

/**
 * Checks MDS_DATA_DIR before anything is written there, so a directory the service cannot use stops
 * the start with a message naming it and the fix, instead of a failure deep inside initdb: it must be
 * creatable, writable by this user, on a writable file system, with room for the cluster.
 */
export function assertUsableDataDir(dir: string, minFree = MIN_DATA_DIR_FREE): void {
  const fail = (problem: string, fix: string) => {
    throw new DataDirError(`MDS_DATA_DIR ${dir} ${problem}: ${fix}, or set MDS_DATA_DIR to another directory`);
  };
  const explain = (err: NodeJS.ErrnoException, doing: string): never => {
    switch (err.code) {
      case 'EROFS':
        return fail(`is on a read-only file system (${doing})`, 'mount it read-write');
      case 'EACCES':
      case 'EPERM': {
        const owner = (() => {
          try {
            return fs.statSync(fs.existsSync(dir) ? dir : path.dirname(dir)).uid;
          } catch {
            return undefined;
          }
        })();
        return fail(`is not writable by ${who()}${owner !== undefined ? `; it belongs to uid ${owner}` : ''} (${doing})`, `give this user write access (chown or chmod it)`);
      }
      case 'ENOSPC':
      case 'EDQUOT':
        return fail(`is on a full file system (${doing})`, 'free space there');
      case 'ENOTDIR':
      case 'EEXIST':
        return fail(`is not a directory (${doing})`, 'remove or rename what is there');
      default:
        return fail(`cannot be used (${doing}: ${err.code ?? err.message})`, 'check the path and its permissions');
    }
  };
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (err) {
    // A recursive mkdir says ENOENT for a read-only or foreign parent; the plain one says why.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !fs.existsSync(path.dirname(dir))) explain(err as NodeJS.ErrnoException, 'creating it');
    try {
      fs.mkdirSync(dir);
    } catch (again) {
      explain(again as NodeJS.ErrnoException, 'creating it');
    }
  }
  const probe = path.join(dir, `.mds-write-check-${process.pid}`);
  try {
    fs.writeFileSync(probe, 'mds');
    fs.rmSync(probe, { force: true });
  } catch (err) {
    explain(err as NodeJS.ErrnoException, 'writing a file there');
  }
  const stats = fs.statfsSync(dir);
  const free = stats.bavail * stats.bsize;
  // A cluster that exists already needs less, but it still writes WAL: the same floor keeps it from starting full.
  if (free < minFree) fail(`has ${formatSize(free)} free, less than the ${formatSize(minFree)} the embedded PostgreSQL needs`, 'free space there');
}
