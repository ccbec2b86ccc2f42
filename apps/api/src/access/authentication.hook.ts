import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizePath, scopeAllows, type Principal } from '#mds/access';
import { answerTimestamp, AppError, forbidden, unauthorized, type Logger } from '#mds/platform';
import { sendError } from '../platform/error-envelope';
import { extractCredentials } from './credentials';
import type { TokenResolver } from './token-resolver';

/** The path the router resolved: the matched route's pattern with its parameters filled in. */
export function resolvedPath(request: FastifyRequest): string {
  const pattern = request.is404 ? undefined : request.routeOptions?.url;
  if (!pattern) return request.url;
  const params = (request.params ?? {}) as Record<string, string>;
  return pattern
    .split('/')
    .map((segment) => {
      if (segment === '*') return params['*'] ?? '';
      if (segment.startsWith(':')) return params[segment.slice(1).replace(/\?$/, '')] ?? '';
      return segment;
    })
    .join('/');
}

/** Routes anyone may read: health, the API's documents, and the key that checks the audit trail's signatures. */
function isPublic(path: string | undefined): boolean {
  return path === '/health' || path === '/api/audit/public-key' || path === '/api/docs' || (path?.startsWith('/api/docs/') ?? false);
}

/**
 * Authenticates every request (known route or not) before anything else runs: resolves the token
 * and counts the request against the token's rate limit (one statement, shared by every API
 * process), refuses revoked and expired tokens, checks the scopes against the resolved path. Role
 * checks per endpoint follow in PermissionsGuard. Username + password is only passed on to the token
 * route. A request the token was allowed to make (any answer but 401, 403, 429) is a use of it:
 * `recordUse` gets it before the answer goes out.
 */
export function installAuthentication(
  fastify: FastifyInstance,
  deps: { resolver: TokenResolver; recordUse?: (use: TokenUse) => Promise<unknown>; bodyLimit: number; logger: Logger },
): void {
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const fail = (err: AppError) => {
      sendError(err, request, reply, deps.bodyLimit, deps.logger);
      return reply;
    };
    const rawPath = normalizePath(request.url);
    if (isPublic(rawPath) && isPublic(normalizePath(resolvedPath(request)))) return;

    const credentials = extractCredentials(request);
    switch (credentials.kind) {
      case 'none':
        reply.header('www-authenticate', 'Bearer');
        return fail(unauthorized('Missing credentials: send "Authorization: Bearer <access token>"'));
      case 'malformed':
        return fail(unauthorized(credentials.reason));
      case 'password':
        if (request.method === 'POST' && rawPath === '/api/access-tokens' && !request.is404) {
          request.passwordLogin = { username: credentials.username, password: credentials.password };
          return;
        }
        return fail(unauthorized('Username and password are accepted only by POST /api/access-tokens/ to create a token; send the token instead'));
    }

    if (credentials.via === 'query') reply.header('cache-control', 'private, no-store');
    const resolved = await deps.resolver.resolve(credentials.token);
    if (!resolved || !resolved.token.ownerExists) return fail(unauthorized('Invalid access token'));
    const { token: record, rate } = resolved;
    if (record.revoked) return fail(unauthorized('This access token was revoked'));
    if (!record.ownerEnabled) return fail(unauthorized("This access token's integration is disabled"));
    if (record.expired) return fail(unauthorized(`This access token expired at ${answerTimestamp(record.expiresAt!)}`));

    if (rate) {
      const limit = deps.resolver.perMinute;
      reply.header('ratelimit-limit', String(limit));
      reply.header('ratelimit-remaining', String(Math.max(0, limit - rate.count)));
      reply.header('ratelimit-reset', String(rate.resetSeconds));
      reply.header('ratelimit-policy', `${limit};w=60`);
      if (rate.count > limit) {
        reply.header('retry-after', String(rate.resetSeconds));
        return fail(new AppError(429, 'rate_limited', `Rate limit of ${limit} requests a minute for this token exceeded; retry after ${rate.resetSeconds} s`));
      }
    }

    const path = resolvedPath(request);
    if (!scopeAllows(record.scopes, request.method, path) || (record.scopes.length > 0 && !scopeAllows(record.scopes, request.method, request.url))) {
      return fail(forbidden(`This token's scopes do not allow ${request.method} ${rawPath ?? request.url.split('?')[0]}`));
    }

    const integration = record.ownerId.startsWith('integrations/');
    const principal: Principal = {
      tokenId: record.tokenId,
      ownerId: record.ownerId,
      kind: integration ? 'integration' : 'user',
      roles: integration ? record.transferredRoles : record.ownerRoles,
      scopes: record.scopes,
      expiresAt: record.expiresAt,
    };
    request.principal = principal;
    request.tokenLastUsedAt = record.lastUsedAt;
  });

  // A change to tokens or integrations answered here holds for this process's next request at once;
  // other processes hear of it from the access projection's notification (TokenResolver).
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD' && /^\/api\/(access-tokens|integrations)(\/|$)/.test(normalizePath(request.url) ?? '')) deps.resolver.invalidate();
    return payload;
  });

  const recordUse = deps.recordUse;
  if (!recordUse) return;
  fastify.addHook('onSend', async (request, reply, payload) => {
    const p = request.principal;
    if (p && ![401, 403, 429].includes(reply.statusCode)) {
      try {
        await recordUse({ tokenId: p.tokenId, ownerId: p.ownerId, lastUsedAt: request.tokenLastUsedAt ?? null, requestId: request.id });
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, tokenId: p.tokenId }, 'could not record the use of an access token');
      }
    }
    return payload;
  });
}

/** A request an access token made, for recording its use. */
export interface TokenUse {
  tokenId: string;
  ownerId: string;
  lastUsedAt: string | null;
  requestId: string;
}
