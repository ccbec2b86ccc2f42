import type { EventStore, RecordedEvent } from '#mds/event-store';
import type { Pool } from 'pg';
import { waitForProjection, type CheckpointListener } from './consistency';
import type { ReadPools } from './read-pools';

/** What queries read from: the read models' database, and the log for what is read from it directly (settings, runs). */
export interface ReadDeps {
  pool: Pool;
  store: EventStore;
  notifications?: CheckpointListener;
  /** Where reads that a replica may serve go (DATABASE_READ_URL); without it, the pool above. */
  readPools?: ReadPools;
}

/**
 * A read-model lookup a command depends on (deleting event ids, a sale's earlier import): when the
 * answer is incomplete, the read model may lag behind what the client was already told is stored,
 * so it is asked again once the projection has reached the log's head (at most 5 s).
 */
export async function caughtUp<T>(read: ReadDeps, projection: string, lookup: () => Promise<T>, complete: (found: T) => boolean): Promise<T> {
  const found = await lookup();
  if (complete(found)) return found;
  try {
    await waitForProjection(read.pool, projection, await read.store.headPosition(), { timeoutMs: 5000, notifications: read.notifications });
  } catch {
    return found; // still behind: answer from what is there (the records are reported, not lost)
  }
  return lookup();
}

/** The events at these log positions (with their data), read a few at a time. */
export async function readEventsAt(store: EventStore, positions: number[]): Promise<Map<number, RecordedEvent>> {
  const out = new Map<number, RecordedEvent>();
  const wanted = [...new Set(positions)];
  for (let i = 0; i < wanted.length; i += 8) {
    const pages = await Promise.all(wanted.slice(i, i + 8).map((p) => store.readAll({ after: p - 1, limit: 1 })));
    for (const page of pages) for (const e of page.events) out.set(e.position, e);
  }
  return out;
}
