import { createHash } from 'node:crypto';

/** The access token format, here so the logger can recognise tokens (libs/access mints them). */
export const TOKEN_PREFIX = 'mds_';
export const TOKEN_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const TOKEN_BODY_LENGTH = 32; // 32 base62 characters = 190 bits of randomness
const CHECK = 6;
export const TOKEN_LENGTH = TOKEN_PREFIX.length + TOKEN_BODY_LENGTH + CHECK;

/** The 6 base62 characters that end a token with this body. */
export function accessTokenChecksum(body: string): string {
  const digest = createHash('sha256').update(`${TOKEN_PREFIX}${body}`).digest();
  let n = digest.readUInt32BE(0);
  let out = '';
  for (let i = 0; i < CHECK; i++) {
    out += TOKEN_ALPHABET[n % 62];
    n = Math.floor(n / 62);
  }
  return out;
}

export function isWellFormedToken(token: string): boolean {
  if (token.length !== TOKEN_LENGTH || !token.startsWith(TOKEN_PREFIX)) return false;
  const body = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + TOKEN_BODY_LENGTH);
  if (!/^[0-9A-Za-z]+$/.test(body)) return false;
  return accessTokenChecksum(body) === token.slice(TOKEN_PREFIX.length + TOKEN_BODY_LENGTH);
}
