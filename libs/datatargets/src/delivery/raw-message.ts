/*
 * The request and reply as text for the delivery log. Credentials are masked here, once, so no
 * caller can store an unmasked copy: header values by name, and the outlet's secret and the
 * credentials sent wherever they show (a receiver may echo them, or a URL may carry them).
 */

export const MASK = '***';

const SENSITIVE_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'webhook-signature']);
const SENSITIVE_PARTS = ['token', 'secret', 'key', 'password', 'signature', 'auth', 'session', 'credential'];

export type HeaderList = Array<[name: string, value: string]>;

export function isSensitiveHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SENSITIVE_NAMES.has(lower) || SENSITIVE_PARTS.some((part) => lower.includes(part));
}

const CREDENTIAL_PARAM = /token|secret|key|password|passwd|pwd|auth|signature|^sig$|^code$|session|credential/i;

/** A URL query parameter that carries a credential (`api_key`, `access_token`, `sig` …). */
export const isCredentialParam = (name: string): boolean => CREDENTIAL_PARAM.test(name);

// Shorter values are left alone: masking every "1" of an `x-key-version: 1` would garble the log,
// and the header line itself is masked by name anyway.
const MIN_ECHOED_VALUE = 8;

/** Values of sensitive request headers, to be masked wherever they show (a receiver may echo them). */
export function sensitiveValues(headers: HeaderList): string[] {
  return headers
    .filter(([name]) => isSensitiveHeader(name))
    .flatMap(([, value]) => [value, value.replace(/^\S+\s+/, '')]) // `Bearer <token>`: the token alone too
    .filter((value) => value.length >= MIN_ECHOED_VALUE);
}

/**
 * Where masking a text replaces something: `[offset, length]` of each secret's occurrences, longest
 * secrets first and never overlapping one found before, in text order: a log that keeps a text by
 * reference keeps these instead of the masked text, and `applyMasks` of them gives it back.
 */
export function maskSpans(text: string, secrets: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const secret of [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length)) {
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + secret.length)) {
      if (!spans.some(([o, l]) => at < o + l && o < at + secret.length)) spans.push([at, secret.length]);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

/** The text with each span replaced by the mask. */
export function applyMasks(text: string, spans: ReadonlyArray<readonly [number, number]>): string {
  let out = '';
  let from = 0;
  for (const [offset, length] of spans) {
    out += text.slice(from, offset) + MASK;
    from = offset + length;
  }
  return out + text.slice(from);
}

/** The text with every secret masked (longest first, so `whsec_abc` is masked whole before its `abc` part). */
export function maskText(text: string, secrets: readonly string[]): string {
  return applyMasks(text, maskSpans(text, secrets));
}

function headerLines(headers: HeaderList): string {
  return headers.map(([name, value]) => `${name}: ${isSensitiveHeader(name) ? MASK : value}\r\n`).join('');
}

/** `METHOD target HTTP/1.1`, the header block (ending in a blank line), then the body. */
export function renderRequest(method: string, target: string, headers: HeaderList, body: string | undefined): string {
  return `${method} ${target} HTTP/1.1\r\n${headerLines(headers)}\r\n${body ?? ''}`;
}

export function renderReply(status: number, statusMessage: string, headers: HeaderList, body: Buffer, truncatedAfter: number | undefined): string {
  const cut = truncatedAfter === undefined ? '' : `\r\n[truncated after ${truncatedAfter} bytes]`;
  return `HTTP/1.1 ${status} ${statusMessage}`.trimEnd() + `\r\n${headerLines(headers)}\r\n${body.toString('utf8')}${cut}`;
}
