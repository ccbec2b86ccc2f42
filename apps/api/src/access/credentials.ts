import type { FastifyRequest } from 'fastify';

export type Credentials =
  | { kind: 'none' }
  | { kind: 'token'; token: string; via: 'bearer' | 'token' | 'basic' | 'query' }
  | { kind: 'password'; username: string; password: string }
  | { kind: 'malformed'; reason: string };

/**
 * Credentials in the spec's order of preference: `Authorization: Bearer`, `Authorization: Token`
 * (the WooCommerce and Magento plugins), basic with username `access-token`, the `access-token`
 * query parameter; basic with a real username and password is returned for the token route to use.
 */
export function extractCredentials(request: Pick<FastifyRequest, 'headers' | 'query'>): Credentials {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.trim() !== '') {
    const match = /^\s*(\S+)\s+(.+?)\s*$/.exec(header);
    if (!match) return { kind: 'malformed', reason: 'Authorization header must be "Bearer <token>", "Token <token>" or "Basic <base64>"' };
    const scheme = match[1].toLowerCase();
    if (scheme === 'bearer') return { kind: 'token', token: match[2], via: 'bearer' };
    if (scheme === 'token') return { kind: 'token', token: match[2], via: 'token' };
    if (scheme === 'basic') {
      const decoded = Buffer.from(match[2], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) return { kind: 'malformed', reason: 'Basic credentials must be base64 of "username:password"' };
      const username = decoded.slice(0, colon);
      const password = decoded.slice(colon + 1);
      if (username === 'access-token') return { kind: 'token', token: password, via: 'basic' };
      return { kind: 'password', username, password };
    }
    return { kind: 'malformed', reason: `Unsupported authorization scheme "${match[1]}"` };
  }
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.['access-token'];
  if (typeof fromQuery === 'string' && fromQuery !== '') return { kind: 'token', token: fromQuery, via: 'query' };
  if (Array.isArray(fromQuery)) return { kind: 'malformed', reason: 'send access-token once' };
  return { kind: 'none' };
}
