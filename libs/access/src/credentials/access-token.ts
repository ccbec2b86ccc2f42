import { createHash, randomInt } from 'node:crypto';
import { accessTokenChecksum, isWellFormedToken, TOKEN_ALPHABET, TOKEN_BODY_LENGTH, TOKEN_PREFIX } from '#mds/platform';

// The format lives in libs/platform, whose logger redacts anything shaped like a token.
export { isWellFormedToken, TOKEN_PREFIX };

/**
 * `mds_` + 32 random base62 characters + a 6-character checksum: recognisable in logs and secret
 * scanners, and a mistyped token is refused without a database look-up.
 */
export function generateAccessToken(): string {
  let body = '';
  for (let i = 0; i < TOKEN_BODY_LENGTH; i++) body += TOKEN_ALPHABET[randomInt(62)];
  return `${TOKEN_PREFIX}${body}${accessTokenChecksum(body)}`;
}

/** Only this hash is stored. The token has 190 random bits, so a fast hash is enough. */
export function hashAccessToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** First and last characters with asterisks between, as the spec's `hint`. */
export function tokenHint(token: string): string {
  return `${token.slice(0, 8)}${'*'.repeat(token.length - 12)}${token.slice(-4)}`;
}
