/**
 * Every timestamp in an answer has one form: RFC 3339 in UTC, `Z`, microseconds
 * (`2026-03-01T09:30:00.000000Z`), whichever way it was stored or computed — the spec's outlet log
 * and integrations give microseconds, so every other timestamp is padded to them. Dates (`2026-03-01`)
 * are left as they are.
 */
// Those already in the answers' form (six fraction digits and Z, as the read models' SQL writes them) are not
// matched: a page of 10,000 records then costs ~3 ms here instead of ~30 (a callback per timestamp).
const TIMESTAMP = /"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?!\.\d{6}Z")(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})"/g;

/** One timestamp in the answers' form (`base` to the second, `fraction` its digits, `zone` Z or ±hh:mm). */
function fixed(base: string, fraction: string | undefined, zone: string): string {
  const micro = (fraction ?? '').padEnd(6, '0').slice(0, 6);
  if (zone === 'Z') return `${base}.${micro}Z`;
  const utc = Date.parse(`${base}${zone}`);
  return Number.isNaN(utc) ? `${base}.${micro}${zone}` : `${new Date(utc).toISOString().slice(0, 19)}.${micro}Z`;
}

/** The JSON text of an answer with each timestamp string in the answers' form. */
export function fixTimestampsInJson(text: string): string {
  if (!mayNeedFixing(text)) return text;
  return text.replace(TIMESTAMP, (_m, base: string, fraction: string | undefined, zone: string) => `"${fixed(base, fraction, zone)}"`);
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

/**
 * Whether TIMESTAMP could match in `text`: a match has its `T` 11 characters after its opening quote,
 * so only the `T`s are looked at (a search for one character, far quicker than the expression's look
 * at every quote), and one that begins a timestamp already in the answers' form is passed over. A
 * page whose timestamps the read models' SQL wrote (most pages) is then not scanned at all.
 */
function mayNeedFixing(text: string): boolean {
  for (let t = text.indexOf('T', 11); t !== -1; t = text.indexOf('T', t + 1)) {
    if (text.charCodeAt(t - 11) !== 0x22 || text.charCodeAt(t - 6) !== 0x2d || text.charCodeAt(t - 3) !== 0x2d) continue;
    // `hh:mm:ss.ffffffZ"` after it: in form (the expression's look-ahead refuses it); anything else may match.
    if (text.charCodeAt(t + 3) !== 0x3a || text.charCodeAt(t + 6) !== 0x3a || text.charCodeAt(t + 9) !== 0x2e || text.charCodeAt(t + 16) !== 0x5a || text.charCodeAt(t + 17) !== 0x22) return true;
    for (let k = t + 10; k < t + 16; k++) if (!isDigit(text.charCodeAt(k))) return true;
  }
  return false;
}

const TIMESTAMPS_IN_FORM = Symbol('timestamps in the answers\' form');

/** Marks a reply whose JSON text has been through fixTimestampsInJson already: the answer hook does not scan it again. */
export function markTimestampsInForm(reply: object): void {
  (reply as Record<symbol, unknown>)[TIMESTAMPS_IN_FORM] = true;
}

/** Whether markTimestampsInForm marked the reply. */
export const timestampsInForm = (reply: object): boolean => (reply as Record<symbol, unknown>)[TIMESTAMPS_IN_FORM] === true;

/** One timestamp (a string as JSON would carry it) in the answers' form; other strings as they are. */
export function fixTimestamp(value: string): string {
  return fixTimestampsInJson(JSON.stringify(value)).slice(1, -1);
}

/** A moment the service keeps (to the millisecond) in the answers' form: `2026-03-01T09:30:00.123000Z`. */
export function answerTimestamp(moment: Date | string | number): string {
  return new Date(moment).toISOString().replace(/Z$/, '000Z');
}
