import { isCredentialParam, isSensitiveHeader } from './delivery/raw-message';
import type { OutletDefinition } from './datatarget.events';

/**
 * An outlet's credentials never enter the log in clear: header values and URL query values that
 * are credentials go, sealed under the service key, into `credentials_sealed`; the request the event
 * keeps has this placeholder in their place. The worker opens them only to send.
 */
export const SEALED = '[sealed]';

type Request = OutletDefinition['request'];

export interface OutletCredentials {
  headers: Record<string, string>;
  query: Record<string, string>;
}

/** A header that carries one: the delivery log's sensitive names, and any the request marks secret. */
export const isCredentialHeader = (name: string, marked: readonly string[] = []): boolean =>
  isSensitiveHeader(name) || marked.some((m) => m.toLowerCase() === name.toLowerCase());

/**
 * The request with its credentials taken out (placeholders in their place), and the credentials;
 * null when there are none. `marked`: more header names the client says are secret.
 */
export function splitCredentials(request: Request, marked: readonly string[] = []): { request: Request; credentials: OutletCredentials | null } {
  const headers: Record<string, string> = {};
  const found: OutletCredentials = { headers: {}, query: {} };
  for (const [name, value] of Object.entries(request.headers)) {
    if (isCredentialHeader(name, marked) && value !== SEALED) {
      found.headers[name] = value;
      headers[name] = SEALED;
    } else headers[name] = value;
  }
  let url = request.url;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed) {
    let changed = false;
    for (const [name, value] of [...parsed.searchParams]) {
      if (!isCredentialParam(name) || value === SEALED) continue;
      found.query[name] = value;
      parsed.searchParams.set(name, SEALED);
      changed = true;
    }
    if (changed) url = parsed.toString();
  }
  const none = Object.keys(found.headers).length === 0 && Object.keys(found.query).length === 0;
  return { request: { ...request, url, headers }, credentials: none ? null : found };
}

/** The request as it is sent: the placeholders filled from the opened credentials. */
export function withCredentials(request: Request, credentials: OutletCredentials | null): Request {
  if (!credentials) return request;
  const headers = { ...request.headers };
  for (const [name, value] of Object.entries(credentials.headers)) if (headers[name] === SEALED) headers[name] = value;
  let url = request.url;
  if (Object.keys(credentials.query).length > 0 && URL.canParse(url)) {
    const parsed = new URL(url);
    for (const [name, value] of Object.entries(credentials.query)) if (parsed.searchParams.get(name) === SEALED) parsed.searchParams.set(name, value);
    url = parsed.toString();
  }
  return { ...request, url, headers };
}

/** Credentials kept for the parts a change leaves as they were; the parts it sends replace them. */
export function mergeCredentials(kept: OutletCredentials | null, changed: { headers: boolean; url: boolean }, fresh: OutletCredentials | null): OutletCredentials | null {
  const merged: OutletCredentials = {
    headers: changed.headers ? { ...fresh?.headers } : { ...kept?.headers },
    query: changed.url ? { ...fresh?.query } : { ...kept?.query },
  };
  return Object.keys(merged.headers).length === 0 && Object.keys(merged.query).length === 0 ? null : merged;
}

/** The values of these credentials, for masking wherever they could show (a receiver may echo them). */
export const credentialValues = (credentials: OutletCredentials | null): string[] =>
  credentials ? [...Object.values(credentials.headers), ...Object.values(credentials.query)] : [];
