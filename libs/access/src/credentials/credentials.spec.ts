import { generateAccessToken, isWellFormedToken, tokenHint } from './access-token';
import { hashPassword, verifyPassword } from './password';
import { base32Decode, base32Encode, matchTotp, totpCode } from './totp';

describe('TOTP (RFC 6238)', () => {
  // RFC 6238 appendix B, SHA-1 seed "12345678901234567890", 8-digit codes truncated to our 6.
  const secret = base32Encode(Buffer.from('12345678901234567890'));
  it.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1234567890, '005924'],
    [2000000000, '279037'],
  ])('at %i s the code is %s', (seconds, code) => {
    expect(totpCode(secret, Math.floor(seconds / 30))).toBe(code);
  });

  it('accepts one step of drift either way and nothing further', () => {
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(matchTotp(secret, totpCode(secret, step), now)).toBe(step);
    expect(matchTotp(secret, totpCode(secret, step - 1), now)).toBe(step - 1);
    expect(matchTotp(secret, totpCode(secret, step + 1), now)).toBe(step + 1);
    expect(matchTotp(secret, totpCode(secret, step - 2), now)).toBeUndefined();
    expect(matchTotp(secret, '12345', now)).toBeUndefined();
  });

  it('round-trips base32 and refuses other alphabets', () => {
    expect(base32Decode(base32Encode(Buffer.from('hello world'))).toString()).toBe('hello world');
    expect(() => base32Decode('not base32!')).toThrow(/base32/);
  });
});

describe('access token format', () => {
  it('is prefixed, random and checksummed', () => {
    const a = generateAccessToken();
    const b = generateAccessToken();
    expect(a).toMatch(/^mds_[0-9A-Za-z]{38}$/);
    expect(a).not.toBe(b);
    expect(isWellFormedToken(a)).toBe(true);
  });

  it('refuses a mistyped token without a look-up', () => {
    const t = generateAccessToken();
    const typo = t.slice(0, 10) + (t[10] === 'x' ? 'y' : 'x') + t.slice(11);
    expect(isWellFormedToken(typo)).toBe(false);
    expect(isWellFormedToken(t.slice(0, -1))).toBe(false);
    expect(isWellFormedToken(`xyz_${t.slice(4)}`)).toBe(false);
  });

  it('hints with the first and last characters only', () => {
    const t = generateAccessToken();
    const hint = tokenHint(t);
    expect(hint).toHaveLength(t.length);
    expect(hint.startsWith(t.slice(0, 8))).toBe(true);
    expect(hint.endsWith(t.slice(-4))).toBe(true);
    expect(hint.slice(8, -4)).toMatch(/^\*+$/);
  });
});

describe('password hashing', () => {
  it('verifies the password it hashed and nothing else, with a salt per hash', async () => {
    const h1 = await hashPassword('s3cret password', 10);
    const h2 = await hashPassword('s3cret password', 10);
    expect(h1).toMatch(/^scrypt\$10\$8\$1\$/);
    expect(h1).not.toBe(h2);
    expect(await verifyPassword('s3cret password', h1)).toBe(true);
    expect(await verifyPassword('s3cret passwore', h1)).toBe(false);
    expect(await verifyPassword('x', 'not-a-hash')).toBe(false);
  });
});
