import type { Client } from 'pg';
import { createGeneration, openDedicatedClient, type Generation, type Projection, type ProjectionTx } from '#mds/projections';
import type { RecordedEvent } from '#mds/event-store';
import { openTestRuntime } from './runtime';

/**
 * A projection's pages applied by hand, as its runner applies them (in a transaction, on its
 * generation's schema, on a connection of its own), recording the statements each page sends: for
 * tests of what a projection does with a kind of page.
 */
export interface ProjectionPages {
  gen: Generation;
  client: Client;
  /** The statements the last page sent, in order. */
  sent: string[];
  /** Applies one page; `tx` adds to what the projection is given (upstreamAt, signal). */
  apply(events: RecordedEvent[], tx?: Partial<ProjectionTx>): Promise<void>;
  close(): Promise<void>;
}

export async function openProjectionPages(projection: Projection): Promise<ProjectionPages> {
  const rt = await openTestRuntime({ projections: [projection] });
  const gen = await createGeneration(rt.pool, projection, { onlyIfNone: true });
  const client = await openDedicatedClient(rt.runnerDeps(), 'test', { derivedState: true });
  const pages: ProjectionPages = {
    gen,
    client,
    sent: [],
    async apply(events, tx = {}) {
      const sent: string[] = (pages.sent = []);
      const query = ((sql: string, params?: unknown[]) => {
        sent.push(sql);
        return client.query(sql, params);
      }) as ProjectionTx['query'];
      await client.query(`BEGIN; SET LOCAL search_path = "${gen.schemaName}", public`);
      try {
        await projection.apply(events, { query, schema: gen.schemaName, position: events.at(-1)!.position, ...tx });
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    },
    async close() {
      await client.end();
      await rt.close();
    },
  };
  return pages;
}
