import { CoercionError } from './coerce';
import { LIMITS } from './limits';

/** What a date and a datetime may look like as sent (trimmed): read here, and the record schemas' patterns. */
export const DATE_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})$';
export const DATETIME_PATTERN = '^(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,6}))?)?([Zz]|[+-]\\d{2}:?\\d{2})?$';
const DATE = new RegExp(DATE_PATTERN);
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const DATETIME = new RegExp(DATETIME_PATTERN);

const digits = (s: string, from: number, to: number): number => {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
};

/** Date.UTC for any year: Date.UTC reads years 0 to 99 as 1900 to 1999. */
function utcOf(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  if (y >= 100) return Date.UTC(y, mo, d, h, mi, s, ms);
  const t = new Date(Date.UTC(2000, mo, d, h, mi, s, ms));
  t.setUTCFullYear(y);
  return t.getTime();
}

/** First and last instants of LIMITS.yearMin and LIMITS.yearMax, in UTC. */
const EARLIEST = utcOf(LIMITS.yearMin, 0, 1);
const LATEST = utcOf(LIMITS.yearMax, 11, 31, 23, 59, 59, 999);

/** An instant outside the years every reader can take back is refused, naming it in UTC. */
function inRange(utc: number, raw: string): number {
  if (utc < EARLIEST || utc > LATEST) {
    throw new CoercionError('out_of_range', `"${raw}" is ${new Date(utc).toISOString()} in UTC, outside the years ${String(LIMITS.yearMin).padStart(4, '0')} to ${LIMITS.yearMax}`);
  }
  return utc;
}

/** A CANONICAL timestamp (digits in place) that names a real date and time, checked without a Date. */
function isRealCanonical(raw: string): boolean {
  const y = digits(raw, 0, 4);
  const m = digits(raw, 5, 7);
  const d = digits(raw, 8, 10);
  // Year 0 is no year of PostgreSQL's (1 BC is year -1 there), and no plugin's.
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = m === 2 ? (leap ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
  return d <= days && digits(raw, 11, 13) <= 23 && digits(raw, 14, 16) <= 59 && digits(raw, 17, 19) <= 59;
}

function checkDate(y: number, m: number, d: number, raw: string): void {
  const probe = new Date(utcOf(y, m - 1, d));
  if (m < 1 || m > 12 || probe.getUTCFullYear() !== y || probe.getUTCMonth() !== m - 1 || probe.getUTCDate() !== d) {
    throw new CoercionError('invalid_date', `"${raw}" is not a real date`);
  }
}

/** One formatter per time zone: building one costs far more than using it. */
const FORMATS = new Map<string, Intl.DateTimeFormat>();

/** Offset of `timeZone` from UTC at the instant `utcMs`, in ms. */
function zoneOffset(utcMs: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  let format = FORMATS.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    if (FORMATS.size > 100) FORMATS.clear();
    FORMATS.set(timeZone, format);
  }
  const parts = format.formatToParts(new Date(utcMs));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return utcOf(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - Math.floor(utcMs / 1000) * 1000;
}

/** A wall-clock time in `timeZone` as a UTC instant (the later one when a DST change repeats an hour). */
export function zonedToUtc(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number, timeZone: string): number {
  const wall = utcOf(y, mo - 1, d, h, mi, s, ms);
  let utc = wall - zoneOffset(wall, timeZone);
  utc = wall - zoneOffset(utc, timeZone);
  return utc;
}

/** `YYYY-MM-DD` only; impossible dates (2025-02-29) are errors, not shifted. */
export function coerceDate(value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new CoercionError('invalid_date', 'expected a date YYYY-MM-DD');
  const raw = value.trim();
  const m = DATE.exec(raw) ?? DATETIME.exec(raw);
  if (!m) throw new CoercionError('invalid_date', `"${raw}" is not a date YYYY-MM-DD`);
  checkDate(Number(m[1]), Number(m[2]), Number(m[3]), raw);
  if (Number(m[1]) < LIMITS.yearMin) throw new CoercionError('out_of_range', `"${raw}" is outside the years ${String(LIMITS.yearMin).padStart(4, '0')} to ${LIMITS.yearMax}`);
  // A timestamp's date is taken, but not from an impossible timestamp (24:00, 10:61).
  if (m.length > 4 && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59)) throw new CoercionError('invalid_date', `"${raw}" has an impossible time`);
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/**
 * Datetimes as plugins send them: a date, ISO with `Z` or an offset, without a zone, or with a
 * space instead of `T`. Without a zone the settings' time zone applies. Returns ISO UTC.
 */
export function coerceDateTime(value: unknown, timeZone = 'UTC'): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new CoercionError('invalid_datetime', 'expected a date or timestamp');
  const raw = value.trim();
  // Already what we return (ISO UTC to the second): the common case, answered without the parts.
  if (CANONICAL.test(raw) && isRealCanonical(raw)) return raw;
  const date = DATE.exec(raw);
  const m = date ? [raw, date[1], date[2], date[3], '00', '00', '00', undefined, undefined] : DATETIME.exec(raw);
  if (!m) throw new CoercionError('invalid_datetime', `"${raw}" is not a date or ISO 8601 timestamp`);
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  checkDate(y, mo, d, raw);
  if (h > 23 || mi > 59 || s > 59) throw new CoercionError('invalid_datetime', `"${raw}" has an impossible time`);
  const ms = m[7] ? Number(String(m[7]).padEnd(3, '0').slice(0, 3)) : 0;
  const zone = m[8];
  let utc: number;
  if (!zone) utc = zonedToUtc(y, mo, d, h, mi, s, ms, timeZone);
  else if (zone.toUpperCase() === 'Z') utc = utcOf(y, mo - 1, d, h, mi, s, ms);
  else {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    if (Number(digits.slice(0, 2)) > 18 || Number(digits.slice(2, 4)) > 59) throw new CoercionError('invalid_datetime', `"${raw}" has an impossible UTC offset (at most ±18:00)`);
    const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
    utc = utcOf(y, mo - 1, d, h, mi, s, ms) - offset;
  }
  return new Date(inRange(utc, raw)).toISOString().replace('.000Z', 'Z');
}
