import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/*
 * Standard Webhooks (https://www.standardwebhooks.com): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}` and the signature `v1,<base64 HMAC-SHA256>`.
 *
 * The key: a secret written `whsec_<base64>` is the spec's form and signs with the decoded bytes;
 * any other string signs with its UTF-8 bytes. That second reading is ours: the spec's reference
 * libraries base64-decode an unprefixed secret too, so a receiver using one of them must be given
 * `whsec_` + base64(secret) for a plain secret.
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

export function signPayload(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const signature = createHmac('sha256', signingKey(secret)).update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${signature}`;
}

/** The texts that must never show in a stored request or reply: the secret, and its key part when prefixed. */
export function secretSpellings(secret: string): string[] {
  const spellings = [secret];
  if (secret.startsWith(SECRET_PREFIX) && secret.length > SECRET_PREFIX.length) spellings.push(secret.slice(SECRET_PREFIX.length));
  return spellings;
}
