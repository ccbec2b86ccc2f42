import type { FastifyInstance, FastifyReply } from 'fastify';
import type { DatabaseWatch } from '#mds/platform';

// Routes that answer without the database (health reports on it with its own time limit).
const WITHOUT_DATABASE = /^\/(health|api\/docs)(\/|\?|$)/;

function unavailable(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(503).header('retry-after', '5').header('content-type', 'application/json; charset=utf-8').send({ error: { code: 'unavailable', message } });
}

/**
 * While PostgreSQL does not answer (DatabaseWatch), requests get 503 at once instead of waiting on
 * queries that will not come back; those already waiting when it stopped answering get 503 then.
 * What they were doing may still complete when the database answers again, so they are told it may
 * or may not be recorded: a retry with the same Idempotency-Key records it once.
 */
export function installDatabaseGuard(fastify: FastifyInstance, watch: DatabaseWatch): void {
  const waiting = new Map<string, FastifyReply>();
  fastify.addHook('onRequest', async (request, reply) => {
    if (WITHOUT_DATABASE.test(request.url)) return;
    const since = watch.down;
    if (since) return unavailable(reply, `The database has not answered since ${since.toISOString()}; nothing was recorded. Retry the request`);
    waiting.set(request.id, reply);
  });
  const done = async (request: { id: string }) => {
    waiting.delete(request.id);
  };
  fastify.addHook('onResponse', done);
  fastify.addHook('onRequestAbort', done);
  const off = watch.onChange((down) => {
    if (!down) return;
    for (const [id, reply] of waiting) {
      waiting.delete(id);
      if (!reply.sent) {
        unavailable(reply, 'The database stopped answering while this request was handled; it may or may not have been recorded. Retry it (with the same Idempotency-Key, an import is recorded once)');
      }
    }
  });
  fastify.addHook('onClose', async () => {
    off();
    await watch.stop();
  });
}
