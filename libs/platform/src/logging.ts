import pino from 'pino';

export type Logger = pino.Logger;

/** Paths pino blanks in every log line: credentials never reach the logs. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["service-totp-code"]',
  'req.headers["idempotency-key"]',
  'headers.authorization',
  'password',
  'token',
  '*.password',
  '*.token',
];

/** Removes the value of credential-bearing query parameters from a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:access-token|access_token|token|password)=)[^&#]*/gi, '$1[REDACTED]');
}

/** Fields of a line that the pretty form shows in its own place, or not at all. */
const SHOWN_APART = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name']);
const LEVEL_COLOURS: Record<string, string> = { trace: '90', debug: '90', info: '32', warn: '33', error: '31', fatal: '35' };

/** One JSON log line as a person reads it: `10:42:07 INFO  message  key=value …` (colours on a terminal). */
export function prettyLine(json: string, colour = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = String(entry.level ?? 'info');
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
  const label = level.toUpperCase().padEnd(5);
  const fields = Object.entries(entry)
    .filter(([k]) => !SHOWN_APART.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  const head = colour ? `\x1b[${LEVEL_COLOURS[level] ?? '0'}m${label}\x1b[0m` : label;
  return `${time} ${head} ${String(entry.msg ?? '')}${fields ? `  ${colour ? `\x1b[90m${fields}\x1b[0m` : fields}` : ''}`;
}

/** A pino destination writing prettyLine's form (the same entries, redacted as in JSON). */
export function prettyDestination(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): pino.DestinationStream {
  return { write: (chunk: string) => void out.write(`${chunk.split('\n').filter(Boolean).map((l) => prettyLine(l, Boolean(out.isTTY))).join('\n')}\n`) };
}

export function createLogger(level = 'info', name = 'mds', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
