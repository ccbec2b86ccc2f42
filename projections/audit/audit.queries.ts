import { answerTimestamp, maskSealed } from '#mds/platform';
import type { EventFilter, RecordedEvent } from '#mds/event-store';
import type { ReadDeps } from '../runtime/read-side';

/** An event of the log as auditors read it. */
export interface AuditEvent {
  position: number;
  stream: string;
  type: string;
  revision: number;
  created_at: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/** An event as auditors read it: sealed credentials show as "[sealed]" (README "Audit trail"). */
export const auditEvent = (e: RecordedEvent): AuditEvent => ({
  position: e.position,
  stream: e.stream,
  type: e.type,
  revision: e.revision,
  created_at: answerTimestamp(e.createdAt),
  data: maskSealed(e.data),
  metadata: e.metadata,
});

/**
 * A page of the log in position order after `from`, filtered; `next` is where the next page starts
 * (the last event's position) when more events follow, null on the last page. Paging misses nothing
 * that commits while it runs (positions are handed out in commit order) and repeats nothing.
 */
export async function auditEvents(read: ReadDeps, options: { from: number; limit: number; filter: EventFilter }): Promise<{ events: AuditEvent[]; next: number | null }> {
  // One more than the page: whether another page follows, without an empty last page.
  const page = await read.store.readAll({ after: options.from, limit: options.limit + 1, filter: options.filter });
  const events = page.events.slice(0, options.limit).map(auditEvent);
  return { events, next: page.events.length > options.limit ? events[events.length - 1].position : null };
}
