import type { Runtime } from './runtime';

interface Check {
  status: 'ok' | 'failing';
  error?: string;
  [key: string]: unknown;
}

/** A dependency's answer, or why there is none: a server that does not answer fails after `timeoutMs`. */
async function check(probe: () => Promise<Record<string, unknown> | void>, timeoutMs = 2000): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { status: 'ok', ...(answer ?? {}) };
  } catch (err) {
    return { status: 'failing', error: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the database and the event log answer, and what they are: `GET /health`. */
export async function serviceHealth(runtime: Runtime): Promise<{ ok: boolean; database: Check; event_log: Check }> {
  const [database, eventLog] = await Promise.all([
    check(async () => {
      const { rows } = await runtime.pool.query<{ instance_id: string }>('SELECT instance_id FROM mds_instance');
      return { embedded: Boolean(runtime.embedded), instance_id: rows[0]?.instance_id };
    }),
    check(async () => {
      await runtime.store.ping();
      return { kind: runtime.store.kind, head_position: await runtime.store.headPosition() };
    }),
  ]);
  return { ok: database.status === 'ok' && eventLog.status === 'ok', database, event_log: eventLog };
}
