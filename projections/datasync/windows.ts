import { DATATARGET_CREATED, DATATARGET_DELETED, type DatatargetCreated } from '#mds/datatargets';
import type { RecordedEvent } from '#mds/event-store';
import type { DataQuery } from '#mds/imports';
import type { ProjectionTx } from '../runtime/projection';

/** The events that open and close a datasync datatarget's window of the log. */
export const DATASYNC_TARGET_EVENTS = [DATATARGET_CREATED, DATATARGET_DELETED];

type WindowedDatatype = Exclude<DataQuery['datatype'], 'customers'>;

/** Each read model's table of windows (names are unique across read models: a replay builds them all in one schema). */
const WINDOWS: Record<WindowedDatatype, string> = { products: 'product_datasync_windows', events: 'event_datasync_windows', sales: 'sale_datasync_windows' };

/**
 * A read model whose records datasync datatargets receive notes, in its table of windows
 * (datatarget_id, created_position, deleted_position), where in the log a datasync datatarget of its
 * datatype received changes: from its creation to its deletion. What it keeps for the messages
 * (the record after each change) it keeps only inside a window, so it costs nothing without one.
 */
export async function noteDatasyncTargets(events: RecordedEvent[], datatype: WindowedDatatype, tx: ProjectionTx): Promise<void> {
  for (const e of events) {
    if (e.type === DATATARGET_CREATED) {
      const d = e.data as DatatargetCreated;
      if (d.datatarget_type !== 'datasync' || d.datatype !== datatype) continue;
      await tx.query(`INSERT INTO ${WINDOWS[datatype]} (datatarget_id, created_position) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [d.datatarget_id, e.position]);
    } else if (e.type === DATATARGET_DELETED) {
      await tx.query(`UPDATE ${WINDOWS[datatype]} SET deleted_position = $2 WHERE datatarget_id = $1 AND deleted_position IS NULL`, [e.stream.slice('datatarget-'.length), e.position]);
    }
  }
}

/** SQL: true when a change at the log position `position` is inside a window of a datasync datatarget of the datatype. */
export const inDatasyncWindow = (datatype: WindowedDatatype, position: string) =>
  `EXISTS (SELECT 1 FROM ${WINDOWS[datatype]} w WHERE w.created_position < ${position} AND (w.deleted_position IS NULL OR w.deleted_position > ${position}))`;

/** Whether any change in these positions may be inside a window (one query; a page without any costs nothing more). */
export async function anyInDatasyncWindow(tx: ProjectionTx, datatype: WindowedDatatype, positions: number[]): Promise<boolean> {
  if (positions.length === 0) return false;
  const { rows } = await tx.query<{ yes: boolean }>(`SELECT EXISTS (SELECT 1 FROM unnest($1::bigint[]) p WHERE ${inDatasyncWindow(datatype, 'p')}) AS yes`, [positions]);
  return rows[0].yes;
}
