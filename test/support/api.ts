import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApiApp, type ApiContextModules } from '#mds/api';
import { CreateUserCommand, CreateUserHandler, mintToken, type Role, type Scope } from '#mds/access';
import { accessProjection, Projector, waitForProjection, type Projection } from '#mds/projections';
import type { AppConfig } from '#mds/platform';
import type { TestDatabase } from './database';
import { openTestRuntime, type TestRuntime } from './runtime';

export interface TestApi {
  rt: TestRuntime;
  app: NestFastifyApplication;
  base: string;
  call(path: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  close(): Promise<void>;
}

/** Requests to an API at `base`: the status, the body as JSON when it is JSON, else as text. */
export function httpCaller(base: string): TestApi['call'] {
  return async (path, init = {}) => {
    const res = await fetch(`${base}${path}`, init);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body, headers: res.headers, text };
  };
}

/** The API on a fresh database, listening on loopback, with its projections running. */
export async function startTestApi(
  options: { env?: Record<string, string>; contexts?: ApiContextModules; config?: Partial<AppConfig>; projections?: Projection[]; database?: TestDatabase } = {},
): Promise<TestApi> {
  const rt = await openTestRuntime({
    database: options.database,
    projections: [accessProjection, ...(options.projections ?? [])],
    env: { MDS_PASSWORD_HASH_COST: '10', MDS_RATE_LIMIT_PER_MINUTE: '0', MDS_LEASE_RETRY_MS: '50', ...options.env },
    config: options.config,
  });
  const projector = new Projector(rt.runnerDeps(), rt.projections);
  await projector.start();
  const app = await createApiApp(rt, options.contexts);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    rt,
    app,
    base,
    call: httpCaller(base),
    async close() {
      await app.close();
      await projector.stop();
      await rt.close();
    },
  };
}

/** A user with the given roles and a token of theirs, usable as soon as this returns. */
export async function seedUserToken(rt: TestRuntime, username: string, roles: Role[], options: { password?: string; scopes?: Scope[]; totp?: string } = {}) {
  const user = await new CreateUserHandler(rt.store, rt.accessDeps).execute(new CreateUserCommand(username, options.password ?? 'correct horse battery', roles, options.totp));
  const minted = await mintToken(rt.store, { ownerId: `users/${user.user_id}`, name: 'test', createdBy: `users/${user.user_id}`, scopes: options.scopes ?? [], transferredRoles: [], now: new Date().toISOString() });
  await waitForProjection(rt.pool, 'access', minted.position);
  return { userId: user.user_id, token: minted.access_token.token, tokenId: minted.access_token.id };
}

export const bearer = (token: string, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` } });
export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
