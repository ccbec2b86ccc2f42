import { createHash, randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_PREFIX = 'mds_';
const BODY = 32; // 32 base62 characters = 190 bits of randomness
const CHECK = 6;

function checksum(body: string): string {
  const digest = createHash('sha256').update(`${TOKEN_PREFIX}${body}`).digest();
  let n = digest.readUInt32BE(0);
  let out = '';
  for (let i = 0; i < CHECK; i++) {
    out += ALPHABET[n % 62];
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * `mds_` + 32 random base62 characters + a 6-character checksum: recognisable in logs and secret
 * scanners, and a mistyped token is refused without a database look-up.
 */
export function generateAccessToken(): string {
  let body = '';
  for (let i = 0; i < BODY; i++) body += ALPHABET[randomInt(62)];
  return `${TOKEN_PREFIX}${body}${checksum(body)}`;
}

export function isWellFormedToken(token: string): boolean {
  if (token.length !== TOKEN_PREFIX.length + BODY + CHECK || !token.startsWith(TOKEN_PREFIX)) return false;
  const body = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + BODY);
  if (!/^[0-9A-Za-z]+$/.test(body)) return false;
  return checksum(body) === token.slice(TOKEN_PREFIX.length + BODY);
}

/** Only this hash is stored. The token has 190 random bits, so a fast hash is enough. */
export function hashAccessToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** First and last characters with asterisks between, as the spec's `hint`. */
export function tokenHint(token: string): string {
  return `${token.slice(0, 8)}${'*'.repeat(token.length - 12)}${token.slice(-4)}`;
}
