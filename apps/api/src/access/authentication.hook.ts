import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizePath, scopeAllows, type Principal } from '#mds/access';
import { AppError, forbidden, unauthorized, type Logger } from '#mds/platform';
import { sendError } from '../platform/error-envelope';
import { extractCredentials } from './credentials';
import type { RateLimiter } from './rate-limiter';
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

function isPublic(path: string | undefined): boolean {
  return path === '/health' || path === '/api/docs' || (path?.startsWith('/api/docs/') ?? false);
}

/**
 * Authenticates every request (known route or not) before anything else runs: resolves the token,
 * checks its scopes against the resolved path, applies the per-token rate limit. Role checks per
 * endpoint follow in PermissionsGuard. Username + password is only passed on to the token route.
 */
export function installAuthentication(
  fastify: FastifyInstance,
  deps: { resolver: TokenResolver; rateLimiter?: RateLimiter; bodyLimit: number; logger: Logger },
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
    const record = await deps.resolver.resolve(credentials.token);
    if (!record || !record.ownerExists) return fail(unauthorized('Invalid access token'));

    const path = resolvedPath(request);
    if (!scopeAllows(record.scopes, request.method, path) || (record.scopes.length > 0 && !scopeAllows(record.scopes, request.method, request.url))) {
      return fail(forbidden(`This token's scopes do not allow ${request.method} ${rawPath ?? request.url.split('?')[0]}`));
    }

    if (deps.rateLimiter && deps.rateLimiter.perMinute > 0) {
      const r = deps.rateLimiter.hit(record.tokenId);
      reply.header('ratelimit-limit', String(r.limit));
      reply.header('ratelimit-remaining', String(r.remaining));
      reply.header('ratelimit-reset', String(r.resetSeconds));
      reply.header('ratelimit-policy', `${r.limit};w=60`);
      if (!r.allowed) {
        reply.header('retry-after', String(r.resetSeconds));
        return fail(new AppError(429, 'rate_limited', `Rate limit of ${r.limit} requests a minute for this token exceeded; retry after ${r.resetSeconds} s`));
      }
    }

    const integration = record.ownerId.startsWith('integrations/');
    const principal: Principal = {
      tokenId: record.tokenId,
      ownerId: record.ownerId,
      kind: integration ? 'integration' : 'user',
      roles: integration ? record.transferredRoles : record.ownerRoles,
      scopes: record.scopes,
    };
    request.principal = principal;
  });
}
