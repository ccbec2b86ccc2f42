import { createHash, type KeyObject } from 'node:crypto';
import { PersonalDataEventStore, personalCommitment, type EventStore, type KeptFields, type ReadAllOptions, type ReadAllPage } from '#mds/event-store';
import { canonicalJson, verifySigned, type AuditSigner } from '#mds/platform';
import { auditEvent } from './audit.queries';

/**
 * The auditors' export of the log: JSON lines in position order. A start line gives the chain's point
 * just before the range (`{count, head, position}`, signed); then one line per event, each carrying
 * the hash of the line before it (`prev`) and its own (`hash` = SHA-256 of `prev` and the event's
 * canonical JSON); then a final line `{count, from, hash, head, to}` (a hash over it and the chain's
 * head), signed. Every line is canonical JSON (keys sorted, no spaces), so the same range gives the
 * same bytes on every run, and any changed byte, deleted line or reordering breaks the chain at a
 * line that `verifyExport` names.
 *
 * The chain is one chain over the whole log from its first event: the service appends signed
 * checkpoints of it to the log (appendCheckpoint), and signs each export's start and end with its
 * audit key (Ed25519, README "Audit trail"), so a chain recomputed after an edit, a cut tail closed
 * with a new final line, or a range that does not join the chain is found by anyone with the public key.
 *
 * The chain covers the events as the log holds them, which never change. Personal fields, kept apart
 * from the log (README "Forgetting"), go beside the event in `personal`, outside the hash, as they
 * are at export time: a forgetting turns them into markers without changing any hash, so an export
 * made before it and one made after have the same chain. The event carries a salted commitment to
 * them (in the chain), its salt beside them until a forgetting or retention erases it: an edited
 * personal field is found, an erased one cannot be tested.
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

/** A point of the chain: the head after `count` events, the last at log position `position`. */
export interface ChainPoint {
  position: number;
  count: number;
  head: string;
}

/** A point of the chain signed by the service's audit key (a checkpoint, or an export's start). */
export interface SignedPoint extends ChainPoint {
  key_id: string;
  signature: string;
}

/** Where every chain starts: no event yet. */
export const GENESIS_POINT: ChainPoint = { position: 0, count: 0, head: GENESIS };

/** The stream the service appends its signed chain checkpoints to, and their type. */
export const AUDIT_CHAIN_STREAM = 'audit-chain';
export const AUDIT_CHECKPOINTED = 'AuditChainCheckpointed';

/** What a point's signature is over: its position, count and head, and the key's id. */
const signedValue = (p: ChainPoint, keyId: string) => ({ count: p.count, head: p.head, key_id: keyId, position: p.position });

export const signPoint = (signer: AuditSigner, p: ChainPoint): SignedPoint => ({ ...p, key_id: signer.keyId, signature: signer.sign(signedValue(p, signer.keyId)) });

/** The latest signed checkpoint in the log at or before `position` (the whole stream when absent). */
export async function checkpointAtOrBefore(store: EventStore, position = Number.MAX_SAFE_INTEGER): Promise<(SignedPoint & { at: number; revision: number }) | undefined> {
  let before: number | undefined;
  for (;;) {
    const page = await store.readStream(AUDIT_CHAIN_STREAM, { direction: 'backwards', limit: 100, ...(before !== undefined ? { fromRevision: before } : {}) }).catch(() => []);
    for (const e of page) {
      const cp = e.data as SignedPoint;
      if (cp.position <= position) return { ...cp, at: e.position, revision: e.revision };
    }
    if (page.length < 100) return undefined;
    before = page[page.length - 1].revision - 1;
    if (before < 0) return undefined;
  }
}

/**
 * The chain over the log's events after `start.position` up to `to`, page by page: each event's
 * canonical JSON as auditors read it (auditEvent: the event as the log holds it, sealed values
 * "[sealed]") and the fields kept apart beside it. Reads the next page while this one is hashed.
 * Pages hold about PAGE_CHARS of events (import chunks are ~300 KB each: a page of 1,000 was 300 MB
 * held at once), and the hashing gives the event loop back every SLICE_MS: the checkpoint runs in
 * the API's process under `mds start`, whose requests waited for a whole page (p99 826 ms at 1,000
 * requests a second while it checkpointed 1,000,000 imported customers). With `pauseMs` it rests that
 * long after each slice, so a background walk takes a bounded share of a core.
 */
async function* chainFrom(store: EventStore, start: ChainPoint, to: number, options: { pauseMs?: number; kept?: boolean } = {}): AsyncGenerator<{ lines: Array<{ event: string; hash: string; n: number; prev: string; kept?: KeptFields; position: number }>; at: ChainPoint }> {
  let prev = start.head;
  let n = start.count;
  let limit = 20;
  const pauseMs = options.pauseMs ?? 0;
  // The fields kept apart are not hashed: only an export's lines carry them.
  const read = (after: number) => readApart(store, { after, limit: Math.min(limit, to - after) }, options.kept !== false);
  let after = start.position;
  let next = after < to ? read(after) : undefined;
  let last = start.position;
  while (next) {
    const { page, kept } = await next;
    if (page.position === after) break;
    next = page.position < to ? read(page.position) : undefined;
    next?.catch(() => undefined); // awaited on the next turn
    const lines = [];
    let chars = 0;
    let slice = performance.now();
    for (const e of page.events) {
      if (e.position > to) break;
      const event = canonicalJson(auditEvent(e));
      const hash = chainHash(prev, event);
      n++;
      lines.push({ event, hash, n, prev, kept: kept.get(e.id), position: e.position });
      prev = hash;
      last = e.position;
      chars += event.length;
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => (pauseMs > 0 ? setTimeout(resolve, pauseMs) : setImmediate(resolve)));
        slice = performance.now();
      }
    }
    // The page after the next one: as many events as PAGE_CHARS holds of events the size of these.
    if (lines.length > 0) limit = Math.max(10, Math.min(1000, Math.floor(PAGE_CHARS / (chars / lines.length))));
    after = page.position;
    yield { lines, at: { position: last, count: n, head: prev } };
  }
}

/** About how much event text a page of the chain holds. */
const PAGE_CHARS = 8 * 1024 * 1024;
/** Longest the chain's hashing keeps the event loop before it lets others run. */
const SLICE_MS = 10;

/** The chain's point at `position` (its last event at or before it), from the checkpoint before it. */
export async function chainPointAt(store: EventStore, position: number): Promise<ChainPoint> {
  let point: ChainPoint = GENESIS_POINT;
  const checkpoint = await checkpointAtOrBefore(store, position);
  if (checkpoint) point = { position: checkpoint.position, count: checkpoint.count, head: checkpoint.head };
  for await (const { at } of chainFrom(store, point, position, { kept: false })) point = at;
  return point;
}

/**
 * Appends a signed checkpoint of the whole log's chain up to its head, computed from the last
 * checkpoint; nothing when no event came since but that checkpoint. Returns what it appended.
 */
export async function appendCheckpoint(store: EventStore, signer: AuditSigner, options: { pauseMs?: number } = {}): Promise<SignedPoint | undefined> {
  const last = await checkpointAtOrBefore(store);
  const to = await store.headPosition();
  if (last && to <= last.at) return undefined;
  let point: ChainPoint = last ? { position: last.position, count: last.count, head: last.head } : GENESIS_POINT;
  for await (const { at } of chainFrom(store, point, to, { pauseMs: options.pauseMs, kept: false })) point = at;
  if (point.position === (last?.position ?? 0)) return undefined;
  const signed = signPoint(signer, point);
  await store.append(AUDIT_CHAIN_STREAM, [{ type: AUDIT_CHECKPOINTED, data: signed, metadata: { actor: 'audit-anchor' } }], { expectedRevision: last ? last.revision : 'no_stream' });
  return signed;
}

/**
 * The export of the log's positions `from` to `to` (both included), line by line (each ends with a
 * newline): a start line with the chain's point just before `from` (signed when a signer is given,
 * so a range export provably joins the chain), the event lines, and the final line, signed likewise.
 */
export async function* exportLines(store: EventStore, range: { from: number; to: number }, options: { signer?: AuditSigner; onProgress?: (p: ExportProgress) => void } = {}): AsyncGenerator<string> {
  const start = range.from <= 1 ? GENESIS_POINT : await chainPointAt(store, range.from - 1);
  const startLine = start.position === 0 || !options.signer ? start : signPoint(options.signer, start);
  yield `${canonicalJson({ start: startLine })}\n`;
  let head = start.head;
  let count = 0;
  for await (const { lines, at } of chainFrom(store, start, range.to)) {
    let text = '';
    for (const l of lines) {
      // Keys in sorted order, so the line is canonical JSON as it stands.
      const personal = l.kept ? `"personal":${canonicalJson(l.kept.fields)},` : '';
      text += `{"event":${l.event},"hash":"${l.hash}","n":${l.n},${personal}"prev":"${l.prev}"${l.kept ? `,"salt":${JSON.stringify(l.kept.salt)}` : ''}}\n`;
    }
    count += lines.length;
    head = at.head;
    if (text) yield text;
    options.onProgress?.({ position: Math.min(at.position, range.to), to: range.to, events: count });
  }
  yield `${finalLine(count, range, head, options.signer)}\n`;
}

/** A page as the log holds it, and the fields kept apart from it (none when nothing is). */
async function readApart(store: EventStore, options: ReadAllOptions, withKept = true): Promise<{ page: ReadAllPage; kept: Map<string, KeptFields> }> {
  if (store instanceof PersonalDataEventStore) return store.readAllApart(options, withKept);
  return { page: await store.readAll(options), kept: new Map() };
}

/** The last line: the count, the range and the chain's head, with a hash over them all (and its signature). */
function finalLine(count: number, range: { from: number; to: number }, head: string, signer?: AuditSigner): string {
  const hash = chainHash(head, canonicalJson({ count, from: range.from, to: range.to }));
  const line = { count, from: range.from, hash, head, to: range.to };
  return canonicalJson(signer ? { ...line, key_id: signer.keyId, signature: signer.sign(line) } : line);
}

const EVENT_LINE_KEYS = 'event,hash,n,prev';
/**
 * An event line with the fields kept apart from the event beside it (not hashed: they can be
 * forgotten), and the salt of the commitment the event carries to them (null once erased).
 */
const PERSONAL_LINE_KEYS = 'event,hash,n,personal,prev,salt';
const FINAL_LINE_KEYS = 'count,from,hash,head,to';
const SIGNED_FINAL_LINE_KEYS = 'count,from,hash,head,key_id,signature,to';

export type VerifyResult =
  | { ok: true; count: number; head: string; signed: boolean; checkpoints: number; personal: { verified: number; erased: number; uncommitted: number } }
  | { ok: false; line: number; problem: string };

/**
 * Checks an export line by line: the start line, then each line canonical JSON as written, numbered
 * in turn, chained to the one before it, its hash right; every checkpoint of the log inside it naming
 * the chain's head at its position; the final line's count and head those of the chain, and nothing
 * after it. With the service's public key, also every signature: the start's (unless the chain starts
 * there), each checkpoint's and the final line's, so a chain recomputed after an edit, a tail cut and
 * closed with a new final line, or a range that does not join the chain is found. Names the first line
 * that is not right (1-based, as an editor counts).
 */
export async function verifyExport(lines: AsyncIterable<string> | Iterable<string>, publicKey?: { key: KeyObject; keyId: string }): Promise<VerifyResult> {
  let prev = GENESIS;
  let count = 0;
  let events = 0;
  let lineNo = 0;
  let checkpoints = 0;
  const personal = { verified: 0, erased: 0, uncommitted: 0 };
  let final: Record<string, unknown> | undefined;
  let started = false;
  /** The chain's head at each log position seen, for the checkpoints inside the export. */
  const heads = new Map<number, { head: string; count: number }>();
  const signedBy = (value: unknown, sig: Record<string, unknown>) => sig.key_id === publicKey!.keyId && verifySigned(publicKey!.key, value, sig.signature);
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
    if (!started) {
      if (keys !== 'start') return { ok: false, line: lineNo, problem: 'the first line is not the start line ({"start": {count, head, position}})' };
      const s = parsed.start as Record<string, unknown>;
      if (s === null || typeof s !== 'object' || !Number.isSafeInteger(s.position) || !Number.isSafeInteger(s.count) || typeof s.head !== 'string') {
        return { ok: false, line: lineNo, problem: 'the start line names no chain point (count, head, position)' };
      }
      if (s.position === 0 && (s.count !== 0 || s.head !== GENESIS)) return { ok: false, line: lineNo, problem: 'a chain starting at position 0 starts with no events and the genesis hash' };
      if (publicKey && s.position !== 0 && !signedBy(signedValue(s as never, String(s.key_id)), s)) {
        return { ok: false, line: lineNo, problem: 'the start line is not signed by this key: the range does not provably join the chain' };
      }
      prev = s.head as string;
      count = s.count as number;
      heads.set(s.position as number, { head: prev, count });
      started = true;
      continue;
    }
    if (keys === FINAL_LINE_KEYS || keys === SIGNED_FINAL_LINE_KEYS) {
      final = parsed;
      if (parsed.count !== events) return { ok: false, line: lineNo, problem: `the final line counts ${String(parsed.count)} events, the file has ${events}` };
      if (parsed.head !== prev) return { ok: false, line: lineNo, problem: 'the final line names another chain head than the last event line' };
      const range = { from: parsed.from as number, to: parsed.to as number };
      if (!Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to)) return { ok: false, line: lineNo, problem: 'the final line\'s from and to are not positions' };
      const unsigned = finalLine(events, range, prev);
      const { key_id: keyId, signature, ...rest } = parsed;
      if (canonicalJson(rest) !== unsigned) return { ok: false, line: lineNo, problem: 'the final line\'s hash does not match its count, range and head' };
      if (publicKey && !signedBy(rest, { key_id: keyId, signature })) return { ok: false, line: lineNo, problem: 'the final line is not signed by this key: the export was cut or closed by someone else' };
      continue;
    }
    if (keys !== EVENT_LINE_KEYS && keys !== PERSONAL_LINE_KEYS) return { ok: false, line: lineNo, problem: `neither an event line (${EVENT_LINE_KEYS}, or ${PERSONAL_LINE_KEYS}) nor the final line (${FINAL_LINE_KEYS})` };
    if (parsed.n !== count + 1) return { ok: false, line: lineNo, problem: `numbered ${String(parsed.n)}, expected ${count + 1} (a line is missing or out of order)` };
    if (parsed.prev !== prev) return { ok: false, line: lineNo, problem: 'prev is not the hash of the line before it (a line is missing, added or out of order)' };
    const hash = chainHash(prev, canonicalJson(parsed.event));
    if (parsed.hash !== hash) return { ok: false, line: lineNo, problem: 'hash does not match the event and prev (the event was changed)' };
    const event = parsed.event as { type?: unknown; position?: unknown; data?: Record<string, unknown>; metadata?: Record<string, unknown> };
    if (keys === PERSONAL_LINE_KEYS) {
      // The kept fields against the commitment the event carries (in the chain): while its salt is kept.
      const commitment = event.metadata?.personal_commitment;
      if (typeof commitment !== 'string') personal.uncommitted++;
      else if (parsed.salt === null) personal.erased++;
      else if (typeof parsed.salt !== 'string' || personalCommitment(parsed.salt, parsed.personal as Record<string, unknown>) !== commitment) {
        return { ok: false, line: lineNo, problem: 'the personal fields beside the event are not those its commitment names (they were changed)' };
      } else personal.verified++;
    }
    if (event.type === AUDIT_CHECKPOINTED && event.data) {
      const cp = event.data;
      const at = heads.get(cp.position as number);
      if (at && (at.head !== cp.head || at.count !== cp.count)) return { ok: false, line: lineNo, problem: `the checkpoint names another chain head at position ${String(cp.position)} than the lines before it` };
      if (publicKey && !signedBy(signedValue(cp as never, String(cp.key_id)), cp)) return { ok: false, line: lineNo, problem: 'a checkpoint of the log is not signed by this key' };
      checkpoints++;
    }
    prev = hash;
    count++;
    events++;
    heads.set(event.position as number, { head: prev, count });
    // A checkpoint follows closely what it covers: the last positions are enough to hold on to.
    if (heads.size > 100_000) heads.delete(heads.keys().next().value!);
  }
  if (!started) return { ok: false, line: 1, problem: 'the file is empty: it was cut short' };
  if (!final) return { ok: false, line: lineNo + 1, problem: 'the file ends without its final line (count and head): it was cut short' };
  return { ok: true, count: events, head: prev, signed: Boolean(publicKey), checkpoints, personal };
}
