import { InvalidArgumentError } from 'commander';

// What the command definitions need to parse arguments: nothing here may load the service (`mds --help`
// and argument errors answer without it).

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number >= 0');
  return n;
}

export function seconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number of seconds > 0');
  return n;
}

/** A repeatable option's values, in order. */
export const collect = (value: string, all: string[] = []) => [...all, value];

/** A point of the log as given on the command line: a position, or a time (the last event at or before it). */
export type LogPoint = { position: number } | { time: string };

export function logPoint(value: string): LogPoint {
  if (/^\d+$/.test(value)) return { position: positiveInt(value) };
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))) return { time: new Date(value).toISOString() };
  throw new InvalidArgumentError('must be a log position (a whole number) or an ISO 8601 time, e.g. 2026-03-01T10:00:00Z');
}

export function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => (data += d));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

export function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) process.stdout.write(`${r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`);
}

/** The read models `mds query` pages through. */
export const DATATYPES = ['customers', 'products', 'events', 'sales', 'campaigns'] as const;
