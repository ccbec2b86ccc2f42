import * as fs from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ: /proc counts CPU time in hundredths of a second on Linux

/** utime + stime of a process and of its reaped children, in µs (Linux /proc); 0 once it is gone. */
export function cpuOf(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14–17 of stat (utime, stime, cutime, cstime), counted after the command's closing parenthesis.
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_US;
  } catch {
    return 0;
  }
}
