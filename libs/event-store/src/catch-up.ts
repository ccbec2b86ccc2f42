import type { EventStore, EventSubscription, ReadAllPage, SubscribeOptions } from './event-store.port';

/**
 * A catch-up subscription built on `readAll` + `waitForAppend`: it pages through the log from
 * `after`, then waits for new commits. Pages come strictly in position order and never repeat,
 * because each read starts after the last position the previous page looked at.
 */
export function catchUpSubscription(
  store: Pick<EventStore, 'readAll' | 'waitForAppend'>,
  options: SubscribeOptions = {},
  idleWaitMs = 1000,
): EventSubscription {
  const abort = new AbortController();
  let position = options.after ?? 0;
  const batchSize = options.batchSize ?? 500;

  async function* pages(): AsyncGenerator<ReadAllPage> {
    while (!abort.signal.aborted) {
      const page = await store.readAll({ after: position, limit: batchSize, filter: options.filter });
      if (abort.signal.aborted) return;
      const moved = page.position > position;
      position = Math.max(position, page.position);
      if (page.events.length > 0) yield page;
      if (page.events.length < batchSize && !moved) await store.waitForAppend(position, idleWaitMs, abort.signal);
    }
  }

  const iterator = pages();
  return {
    [Symbol.asyncIterator]: () => iterator,
    async close() {
      abort.abort();
      await iterator.return(undefined);
    },
  };
}
