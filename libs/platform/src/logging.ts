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
