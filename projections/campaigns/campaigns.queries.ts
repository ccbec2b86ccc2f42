import type { Pool } from 'pg';

/** A position in the list: the campaign's activation (null: none) and its key. */
export type CampaignCursor = [string | null, string];

/**
 * A page of campaign statistics records in activation order (`descending`: newest first; campaigns
 * without an activation last in either order; ties by key), after `from`: keyset paging, so a campaign imported
 * between two pages is neither repeated nor makes another one skipped. `keys` keeps those campaigns.
 * Each record is the campaign as imported with the spec's fields filled (null when never sent) and
 * its `stats`, as the projection wrote it: JSON text, ready.
 */
export async function listCampaigns(
  pool: Pool,
  options: { limit: number; order: 'ascending' | 'descending'; from?: CampaignCursor; keys?: string[] },
): Promise<{ json: string[]; last?: CampaignCursor }> {
  const params: unknown[] = [options.limit];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // Campaigns without an activation come last either way: below every time descending, above ascending.
  const none = options.order === 'ascending' ? `'infinity'::timestamptz` : `'-infinity'::timestamptz`;
  const sort = `coalesce(cp.activation, ${none})`;
  const where: string[] = [];
  if (options.keys) where.push(`cp.campaign_key = ANY (${p(options.keys)}::text[])`);
  if (options.from) {
    const at = options.from[0] === null ? none : `${p(options.from[0])}::timestamptz`;
    where.push(`(${sort}, cp.campaign_key) ${options.order === 'ascending' ? '>' : '<'} (${at}, ${p(options.from[1])})`);
  }
  const dir = options.order === 'ascending' ? 'ASC' : 'DESC';
  const { rows } = await pool.query<{ record: string; activation: string | null; campaign_key: string }>(
    `SELECT s.record,
            to_char(cp.activation AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS activation, cp.campaign_key
       FROM campaigns cp JOIN campaign_stats s USING (campaign_key)
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${sort} ${dir}, cp.campaign_key ${dir} LIMIT $1`,
    params,
  );
  const lastRow = rows.at(-1);
  return { json: rows.map((r) => r.record), last: lastRow ? [lastRow.activation, lastRow.campaign_key] : undefined };
}
