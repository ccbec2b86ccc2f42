import { WrongExpectedRevisionError, type EventStore } from '../../event-store/src';

export const IDS_RESERVED = 'IdsReserved';

export interface IdsReserved {
  first: number;
  last: number;
}

/**
 * Reserves `count` consecutive integer ids from the sequence stream `sequence-<name>`: reads its last
 * reservation and appends the next one with optimistic concurrency, retrying when another request
 * reserved first. Ids are so assigned in the command and stored in the log (the same after any
 * rebuild); a reservation whose import then fails leaves a gap, never a duplicate.
 */
export async function reserveIds(store: EventStore, name: string, count: number, actor: string): Promise<number> {
  const stream = `sequence-${name}`;
  for (let attempt = 0; ; attempt++) {
    const [last] = await store.readStream(stream, { direction: 'backwards', limit: 1 });
    const first = last ? (last.data as IdsReserved).last + 1 : 1;
    try {
      await store.append(stream, [{ type: IDS_RESERVED, data: { first, last: first + count - 1 } satisfies IdsReserved, metadata: { actor } }], {
        expectedRevision: last ? last.revision : 'no_stream',
      });
      return first;
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= 100) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 ** attempt)));
    }
  }
}
