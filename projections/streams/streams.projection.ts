import * as path from 'node:path';
import type { RecordedEvent } from '#mds/event-store';
import type { Projection, ProjectionTx } from '../runtime/projection';

/** One set-based statement a batch: the batch is grouped by stream inside Postgres. */
export const streamsProjection: Projection = {
  name: 'streams',
  version: 1,
  // Positions, streams and types only: import chunks are not read whole.
  dataTypes: [],
  tables: ['streams'],
  migrationsDir: path.join(__dirname, 'migrations'),
  async apply(events: RecordedEvent[], tx: ProjectionTx) {
    const rows = events.map((e) => ({ stream: e.stream, revision: e.revision, position: e.position, type: e.type, created_at: e.createdAt }));
    await tx.query(
      `INSERT INTO streams AS s (stream, category, revision, event_count, first_position, last_position, last_type, created_at, updated_at)
       SELECT stream, split_part(stream, '-', 1), max(revision), count(*), min(position), max(position),
              (array_agg(type ORDER BY position DESC))[1], min(created_at), max(created_at)
         FROM jsonb_to_recordset($1::jsonb) AS x(stream text, revision bigint, position bigint, type text, created_at timestamptz)
        GROUP BY stream
       ON CONFLICT (stream) DO UPDATE SET
         revision = excluded.revision,
         event_count = s.event_count + excluded.event_count,
         last_position = excluded.last_position,
         last_type = excluded.last_type,
         updated_at = excluded.updated_at`,
      [JSON.stringify(rows)],
    );
  },
};
