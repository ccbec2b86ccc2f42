export interface Scope {
  method?: string;
  path: string;
}

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * The one spelling of a path that scopes compare: query and fragment dropped, percent-encoding
 * decoded once (so `%2F` is a separator), empty and `.` segments dropped, `..` resolved, no
 * trailing slash. Case is kept: routes are case-sensitive. Undefined for a path that cannot be
 * decoded or climbs above the root; such a path matches no scope.
 */
export function normalizePath(raw: string): string | undefined {
  let path = raw.split(/[?#]/, 1)[0];
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (!path.startsWith('/') || path.includes('\0')) return undefined;
  const out: string[] = [];
  for (const segment of path.split(/[/\\]/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return `/${out.join('/')}`;
}

export class InvalidScopeError extends Error {
  override name = 'InvalidScopeError';
}

/**
 * Validates scopes as sent on token creation and returns them with their paths as given (a client
 * reads back what it sent, trailing slash and all); paths are compared normalised (scopeAllows).
 */
export function parseScopes(input: unknown): Scope[] {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) throw new InvalidScopeError('scopes must be a list of {method?, path}');
  if (input.length > 100) throw new InvalidScopeError('at most 100 scopes per token');
  return input.map((s, i) => {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) throw new InvalidScopeError(`scopes[${i}] must be an object {method?, path}`);
    const { method, path, ...rest } = s as Record<string, unknown>;
    if (Object.keys(rest).length > 0) throw new InvalidScopeError(`scopes[${i}] has unknown keys: ${Object.keys(rest).join(', ')}`);
    if (typeof path !== 'string' || !path.startsWith('/')) throw new InvalidScopeError(`scopes[${i}].path must be a path starting with /`);
    const normalized = normalizePath(path);
    if (!normalized) throw new InvalidScopeError(`scopes[${i}].path "${path}" is not a valid path`);
    if (method === undefined || method === null || method === '') return { path };
    const upper = typeof method === 'string' ? method.toUpperCase() : '';
    if (!(HTTP_METHODS as readonly string[]).includes(upper)) throw new InvalidScopeError(`scopes[${i}].method must be one of ${HTTP_METHODS.join(', ')}`);
    return { method: upper, path };
  });
}

/** True when a token with these scopes may call `method` on `path` (no scopes: unrestricted). */
export function scopeAllows(scopes: readonly Scope[], method: string, path: string): boolean {
  if (scopes.length === 0) return true;
  const normalized = normalizePath(path);
  if (!normalized) return false;
  return scopes.some((s) => normalizePath(s.path) === normalized && (!s.method || s.method === method.toUpperCase()));
}
