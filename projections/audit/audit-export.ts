import { createHash } from 'node:crypto';
import { PersonalDataEventStore, type EventStore, type ReadAllOptions, type ReadAllPage } from '#mds/event-store';
import { canonicalJson } from '#mds/platform';
import { auditEvent } from './audit.queries';

/**
 * The auditors' export of the log: JSON lines, one event each, in position order, each line carrying
 * the hash of the line before it (`prev`) and its own (`hash` = SHA-256 of `prev` and the event's
 * canonical JSON), then a final line `{count, from, hash, head, to}` (the chain's head, and a hash
 * over it and the rest of that line). Every line is canonical JSON (keys sorted, no spaces), so the
 * same range gives the same bytes on every run, and any changed byte, deleted line or reordering
 * breaks the chain at a line that `verifyExport` names. Anyone can compute a chain: keep the head
 * (or sign it) apart from the file to prove later that a file is the one exported.
 *
 * The chain covers the events as the log holds them, which never change. Personal fields, kept apart
 * from the log (README "Forgetting"), go beside the event in `personal`, outside the hash, as they
 * are at export time: a forgetting turns them into markers without changing any hash, so an export
 * made before it and one made after have the same chain.
 */

export { canonicalJson };

/** The `prev` of the first line. */
export const GENESIS = '0'.repeat(64);

/** A line's hash: over the previous line's hash and the event's canonical JSON. */
export const chainHash = (prev: string, event: string) => createHash('sha256').update(prev).update('\n').update(event).digest('hex');

export interface ExportProgress {
  position: number;
  to: number;
  events: number;
}

/** The export of the log's positions `from` to `to` (both included), line by line (each ends with a newline). */
export async function* exportLines(store: EventStore, range: { from: number; to: number }, onProgress?: (p: ExportProgress) => void): AsyncGenerator<string> {
  let prev = GENESIS;
  let n = 0;
  // The next page is read while this one is hashed and written: the database and Node work at once.
  const read = (after: number) => readApart(store, { after, limit: Math.min(1000, range.to - after) });
  let after = Math.max(range.from - 1, 0);
  let next = after < range.to ? read(after) : undefined;
  while (next) {
    const { page, kept } = await next;
    if (page.position === after) break;
    next = page.position < range.to ? read(page.position) : undefined;
    next?.catch(() => undefined); // awaited on the next turn
    let lines = '';
    for (const e of page.events) {
      if (e.position > range.to) break;
      const event = canonicalJson(auditEvent(e));
      const hash = chainHash(prev, event);
      n++;
      const personal = kept.get(e.id);
      // Keys in sorted order, so the line is canonical JSON as it stands.
      lines += `{"event":${event},"hash":"${hash}","n":${n},${personal ? `"personal":${canonicalJson(personal)},` : ''}"prev":"${prev}"}\n`;
      prev = hash;
    }
    if (lines) yield lines;
    after = page.position;
    onProgress?.({ position: Math.min(after, range.to), to: range.to, events: n });
  }
  yield `${finalLine(n, range, prev)}\n`;
}

/** A page as the log holds it, and the fields kept apart from it (none when nothing is). */
async function readApart(store: EventStore, options: ReadAllOptions): Promise<{ page: ReadAllPage; kept: Map<string, Record<string, unknown>> }> {
  if (store instanceof PersonalDataEventStore) return store.readAllApart(options);
  return { page: await store.readAll(options), kept: new Map() };
}

/** The last line: the count, the range and the chain's head, with a hash over them all. */
function finalLine(count: number, range: { from: number; to: number }, head: string): string {
  const hash = chainHash(head, canonicalJson({ count, from: range.from, to: range.to }));
  return canonicalJson({ count, from: range.from, hash, head, to: range.to });
}

const EVENT_LINE_KEYS = 'event,hash,n,prev';
/** An event line with the event's personal fields beside it (not hashed: they can be forgotten). */
const PERSONAL_LINE_KEYS = 'event,hash,n,personal,prev';
const FINAL_LINE_KEYS = 'count,from,hash,head,to';

export type VerifyResult = { ok: true; count: number; head: string } | { ok: false; line: number; problem: string };

/**
 * Checks an export line by line: each line canonical JSON as written, numbered in turn, chained to the
 * one before it, its hash right; the final line's count and head those of the chain, and nothing after
 * it. Names the first line that is not (1-based, as an editor counts).
 */
export async function verifyExport(lines: AsyncIterable<string> | Iterable<string>): Promise<VerifyResult> {
  let prev = GENESIS;
  let count = 0;
  let lineNo = 0;
  let final: Record<string, unknown> | undefined;
  for await (const text of lines) {
    lineNo++;
    if (final) return { ok: false, line: lineNo, problem: 'a line after the final line (count and head)' };
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { ok: false, line: lineNo, problem: 'not JSON' };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { ok: false, line: lineNo, problem: 'not a JSON object' };
    if (canonicalJson(parsed) !== text) return { ok: false, line: lineNo, problem: 'not as written (the bytes differ from the canonical JSON of what it says)' };
    const keys = Object.keys(parsed).join(',');
    if (keys === FINAL_LINE_KEYS) {
      final = parsed;
      if (parsed.count !== count) return { ok: false, line: lineNo, problem: `the final line counts ${String(parsed.count)} events, the file has ${count}` };
      if (parsed.head !== prev) return { ok: false, line: lineNo, problem: 'the final line names another chain head than the last event line' };
      const range = { from: parsed.from as number, to: parsed.to as number };
      if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to)) return { ok: false, line: lineNo, problem: 'the final line\'s from and to are not positions' };
      if (finalLine(count, range, prev) !== text) return { ok: false, line: lineNo, problem: 'the final line\'s hash does not match its count, range and head' };
      continue;
    }
    if (keys !== EVENT_LINE_KEYS && keys !== PERSONAL_LINE_KEYS) return { ok: false, line: lineNo, problem: `neither an event line (${EVENT_LINE_KEYS}, or ${PERSONAL_LINE_KEYS}) nor the final line (${FINAL_LINE_KEYS})` };
    if (parsed.n !== count + 1) return { ok: false, line: lineNo, problem: `numbered ${String(parsed.n)}, expected ${count + 1} (a line is missing or out of order)` };
    if (parsed.prev !== prev) return { ok: false, line: lineNo, problem: 'prev is not the hash of the line before it (a line is missing, added or out of order)' };
    const hash = chainHash(prev, canonicalJson(parsed.event));
    if (parsed.hash !== hash) return { ok: false, line: lineNo, problem: 'hash does not match the event and prev (the event was changed)' };
    prev = hash;
    count++;
  }
  if (!final) return { ok: false, line: lineNo + 1, problem: 'the file ends without its final line (count and head): it was cut short' };
  return { ok: true, count, head: prev };
}
