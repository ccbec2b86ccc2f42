import type { AccessDeps, Principal } from '#mds/access';
import { AppError, SecretBox } from '#mds/platform';
export { MemoryEventStore } from './memory-event-store';

/** The clock of handlers' unit tests. */
export const NOW = new Date('2026-03-01T10:00:00.000Z');

/** What the access handlers need besides the log: a fixed key, the cheapest password hash, a fixed clock. */
export const accessDeps = (over: Partial<AccessDeps> = {}): AccessDeps => ({ secrets: new SecretBox(Buffer.alloc(32, 7)), passwordHashCost: 10, lockoutFailures: 3, now: () => NOW, ...over });

/** A caller authenticated with a token (an admin unless told otherwise). */
export const principal = (over: Partial<Principal> = {}): Principal => ({ tokenId: 'token-of-admin', ownerId: 'users/admin', kind: 'user', roles: ['admin'], scopes: [], ...over });

/** The refusal a handler answers (status, code, message), or what else it threw. */
export async function refusal(run: () => Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await run();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal, and it was accepted');
}

/** An import request of `records` by users/ada, partial acceptance unless told otherwise. */
export const importRequest = (records: unknown[], over: { atomic?: boolean; idempotencyKey?: string; caller?: string } = {}) => ({ records, atomic: false, caller: 'users/ada', ...over });

/** Given these settings (one SettingsChanged in the `settings` stream). */
export const settingsChanged = (changes: Record<string, unknown>) => ({ type: 'SettingsChanged', data: { changes, by: 'users/admin', at: '2026-03-01T09:00:00.000Z' } });
