import { appendDecided, type EventStore } from '#mds/event-store';

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
  let first = 1;
  await appendDecided(store, `sequence-${name}`, (last) => {
    first = last ? (last.data as IdsReserved).last + 1 : 1;
    return [{ type: IDS_RESERVED, data: { first, last: first + count - 1 } satisfies IdsReserved, metadata: { actor } }];
  }, 100);
  return first;
}
