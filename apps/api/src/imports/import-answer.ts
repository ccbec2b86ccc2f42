import type { FastifyRequest } from 'fastify';
import { coerceBoolean, runImport, type ImportAnswer, type ImportKind } from '../../../../libs/imports/src';
import type { EventStore } from '../../../../libs/event-store/src';
import { invalidRequest } from '../../../../libs/platform/src';

/** Shared HTTP side of every import endpoint: `?atomic`, `Idempotency-Key`, the caller, the answer. */
export async function handleImport<R>(store: EventStore, kind: ImportKind<R>, request: FastifyRequest, records: unknown[]): Promise<ImportAnswer> {
  const query = request.query as Record<string, unknown>;
  let atomic: boolean | undefined;
  try {
    atomic = coerceBoolean(query.atomic);
  } catch {
    throw invalidRequest('atomic must be true or false');
  }
  const key = request.headers['idempotency-key'];
  if (Array.isArray(key)) throw invalidRequest('send one Idempotency-Key');
  const { answer } = await runImport(store, kind, {
    records,
    atomic: atomic === true,
    idempotencyKey: key?.trim() || undefined,
    caller: request.principal!.ownerId,
    requestId: request.id,
  });
  return answer;
}
