import pino from 'pino';
import pinoPretty from 'pino-pretty';

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

/**
 * Log lines for a person at a terminal: `[10:42:07] INFO: message {"key":"value"}`, local time, an
 * error's stack on lines of its own, colours where the terminal takes them (not with NO_COLOR).
 * pino-pretty as a stream pino writes to in this thread, synchronously, so the lines before an exit
 * are not lost. It reads pino's JSON after redaction: it sees no secret the JSON lines would not show.
 */
export function prettyDestination(destination?: NodeJS.WritableStream): pino.DestinationStream {
  return pinoPretty({ destination, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,name' });
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
