import { WrongExpectedRevisionError } from './event-store.errors';
import type { EventStore, NewEvent, RecordedEvent } from './event-store.port';

/**
 * Decide-then-append at the stream's head: reads the stream's last event, lets `decide` turn it
 * into the events to append, and appends them at that revision; when another writer came first,
 * reads and decides again (with a little jitter). `decide` may throw to refuse.
 */
export async function appendDecided(
  store: EventStore,
  stream: string,
  decide: (last: RecordedEvent | undefined) => NewEvent[],
  maxRetries = 50,
): Promise<{ position: number; events: NewEvent[] }> {
  for (let attempt = 0; ; attempt++) {
    // The stream's state is in its last event's kept data: a post's messages are not read for it.
    const [last] = await store.readStream(stream, { direction: 'backwards', limit: 1, keptOnly: true });
    const events = decide(last);
    try {
      const result = await store.append(stream, events, { expectedRevision: last ? last.revision : 'no_stream' });
      return { position: result.position, events };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= maxRetries) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
    }
  }
}
