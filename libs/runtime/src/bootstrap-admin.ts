import { CreateUserCommand, CreateUserHandler, USER_CREATED, userIdFor, userStream } from '#mds/access';
import type { Runtime } from './runtime';

/**
 * The first admin, from MDS_ADMIN_USERNAME / MDS_ADMIN_PASSWORD (and MDS_ADMIN_TOTP_SECRET), created
 * at start when no user exists. Several processes starting together create it once: the user's
 * stream is created with expected revision "no stream".
 */
export async function bootstrapAdmin(runtime: Runtime): Promise<'created' | 'exists' | 'not_configured'> {
  const admin = runtime.config.admin;
  if (!admin) return 'not_configured';
  if ((await runtime.store.readStream(userStream(userIdFor(admin.username)), { limit: 1 })).length > 0) return 'exists';
  const anyUser = await runtime.store.readAll({ filter: { types: [USER_CREATED] }, limit: 1 });
  if (anyUser.events.length > 0) return 'exists';
  try {
    await new CreateUserHandler(runtime.store, runtime.accessDeps).execute(
      new CreateUserCommand(admin.username, admin.password, ['admin', 'superuser'], admin.totpSecret, 'system/bootstrap'),
    );
    runtime.logger.info({ username: admin.username, totp: Boolean(admin.totpSecret) }, 'created the first admin user');
    return 'created';
  } catch (err) {
    if ((err as { code?: string }).code === 'conflict') return 'exists';
    throw err;
  }
}
