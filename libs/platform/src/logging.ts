import pino from 'pino';
import { isWellFormedToken, TOKEN_LENGTH, TOKEN_PREFIX } from './access-token-format';

export type Logger = pino.Logger;

export const REDACTED = '[REDACTED]';
export const PERSONAL = '[personal]';

/** Paths pino blanks in every log line: credentials never reach the logs. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["service-totp-code"]',
  'req.headers["idempotency-key"]',
  'headers.authorization',
  'headers["proxy-authorization"]',
  'headers.cookie',
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
];

const CREDENTIAL_PARAMETERS = new Set(['password', 'api_key', 'apikey', 'key', 'secret', 'signature', 'sig', 'code']);
const CREDENTIAL_PART = /token|secret|password|auth/;

/**
 * Filters whose values name or reach a person: the personal fields of customers, events and sales
 * (CUSTOMER_PERSONAL_FIELDS and its kin, which libs/platform may not import) and the customer ids.
 */
const PERSONAL_PARAMETERS = new Set([
  'email', 'phone', 'phone_number', 'sale_email', 'sale_phone_number', 'customer_id', 'sale_customer_id', 'customer_token', 'cb_token',
  'first_name', 'last_name', 'street_address', 'street_name', 'house_number', 'house_number_addition', 'zip_code', 'city', 'birth_date',
]);
// Which company fields are personal is a setting the logger cannot see (and another process may
// change it): every `<COMPANY>__<field>` value is masked.
const COMPANY_FIELD = /^[a-z][a-z0-9]*__./i;
const EMAIL = /[^\s@/]+@[^\s@/]+\.[^\s@/]+/;
const TOKEN_CANDIDATE = new RegExp(`${TOKEN_PREFIX}[0-9A-Za-z]{${TOKEN_LENGTH - TOKEN_PREFIX.length}}`, 'g');
// Characters a token is made of, or %XX escapes of them: a token percent-encoded stays one run.
const TOKEN_RUN = /(?:[0-9A-Za-z_]|%[0-9A-Fa-f]{2})+/g;

function hasTokenAsIs(text: string): boolean {
  return [...text.matchAll(TOKEN_CANDIDATE)].some(([candidate]) => isWellFormedToken(candidate));
}

/** Percent-decoding that never fails: what is not UTF-8 is decoded byte by byte. */
function decodePercent(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/** Decoded up to three times over: `%252D` is a `-` to a reader, if not to the query parser. */
function decodeFully(text: string): string {
  for (let round = 0; round < 3 && text.includes('%'); round++) text = decodePercent(text);
  return text;
}

function holdsAccessToken(text: string): boolean {
  for (let round = 0; round < 4; round++) {
    if (hasTokenAsIs(text)) return true;
    const decoded = decodePercent(text);
    if (decoded === text) return false;
    text = decoded;
  }
  return false;
}

/**
 * Every well-formed access token in a text, percent-encoded or not, replaced by [REDACTED]: the
 * token alone when it is written as is, the whole run of characters around an encoded one.
 */
export function redactAccessTokens(text: string): string {
  if (!text.includes(TOKEN_PREFIX) && !text.includes('%')) return text;
  return text.replace(TOKEN_RUN, (run) => {
    if (run.length < TOKEN_LENGTH) return run;
    if (!run.includes('%')) return run.replace(TOKEN_CANDIDATE, (candidate) => (isWellFormedToken(candidate) ? REDACTED : candidate));
    return holdsAccessToken(run) ? REDACTED : run;
  });
}

/**
 * A URL as it may be logged: credentials and access tokens become [REDACTED], personal values
 * [personal], the rest stays as sent. Names and values are compared decoded (percent-escapes, `+` as
 * a space in the query), so every spelling the query parser reads as `access-token` is caught.
 */
export function redactUrl(url: string): string {
  // The router takes the query from the first `?` or `#`, so the token may follow either.
  const q = url.search(/[?#]/);
  const rawPath = q === -1 ? url : url.slice(0, q);
  const segments = rawPath.split('/');
  const decoded = segments.map((segment) => decodeFully(segment).toLowerCase());
  // The segment after `customers` is a customer's external id (`//` counts as `/` to the router).
  const named = decoded.flatMap((segment, i) => (segment === '' ? [] : [i]));
  const customers = named.findIndex((i, k) => ['customers', 'customer'].includes(decoded[i]) && ['api', 'data'].includes(decoded[named[k - 1]]));
  const identifier = customers === -1 ? undefined : named[customers + 1];
  const path = segments.map((raw, i) => {
    if (holdsAccessToken(raw)) return REDACTED;
    return (i === identifier && decoded[i] !== 'upload') || EMAIL.test(decoded[i]) ? PERSONAL : raw;
  });
  if (q === -1) return path.join('/');
  const parameters = url
    .slice(q + 1)
    .split('&')
    .map((parameter) => redactParameter(parameter, customers !== -1));
  return `${path.join('/')}${url[q]}${parameters.join('&')}`;
}

function redactParameter(parameter: string, customerRoute: boolean): string {
  const eq = parameter.indexOf('=');
  const rawName = eq === -1 ? parameter : parameter.slice(0, eq);
  const name = decodeFully(rawName.replace(/\+/g, ' ')).toLowerCase();
  if (holdsAccessToken(rawName)) return eq === -1 ? REDACTED : `${REDACTED}=${REDACTED}`;
  if (eq === -1) return parameter;
  const rawValue = parameter.slice(eq + 1);
  if (rawValue === '') return parameter;
  if (PERSONAL_PARAMETERS.has(name) || COMPANY_FIELD.test(name) || (customerRoute && name === 'external_id')) return `${rawName}=${PERSONAL}`;
  if (CREDENTIAL_PARAMETERS.has(name) || CREDENTIAL_PART.test(name) || holdsAccessToken(rawValue)) return `${rawName}=${REDACTED}`;
  return EMAIL.test(decodeFully(rawValue.replace(/\+/g, ' '))) ? `${rawName}=${PERSONAL}` : parameter;
}

/**
 * Log lines for a person at a terminal: `[10:42:07] INFO: message {"key":"value"}`, local time, an
 * error's stack on lines of its own, colours where the terminal takes them (not with NO_COLOR).
 * pino-pretty as a stream pino writes to in this thread, synchronously, so the lines before an exit
 * are not lost. It reads pino's JSON after redaction: it sees no secret the JSON lines would not show.
 */
export function prettyDestination(destination?: NodeJS.WritableStream): pino.DestinationStream {
  // Loaded here, for a terminal only: every other process (and every `mds` command) goes without it.
  const pinoPretty = require('pino-pretty') as typeof import('pino-pretty');
  return pinoPretty({ destination, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,name' });
}

export function createLogger(level = 'info', name = 'mds', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
    // The line as written (message, bindings, every field, an error's stack): a token is caught
    // wherever it is; the pretty form reads this same line.
    hooks: { streamWrite: redactAccessTokens },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
