import type { AccessActor } from './access.deps';
import { ACCESS_TOKEN_CREATED, ACCESS_TOKEN_REVOKED, type TokenEvent } from './access.events';
import { decideRevoke, decideTokenUse, evolveToken, initialTokenState, MAX_TOKEN_LIFETIME_S, tokenExpiry, type TokenState } from './token.decider';

const created: TokenEvent = {
  type: ACCESS_TOKEN_CREATED,
  data: { token_id: 't1', owner_id: 'users/ada', name: '', token_hash: 'h', hint: 'mds_****', created_by: 'users/ada', transferred_roles: [], scopes: [], created_at: '2026-01-01T00:00:00Z' },
};
const given = (...events: TokenEvent[]): TokenState => events.reduce(evolveToken, initialTokenState);
const owner: AccessActor = { actor: 'users/ada', manages: false };
const admin: AccessActor = { actor: 'users/root', manages: true };
const other: AccessActor = { actor: 'users/bob', manages: false };

describe('revoking a token', () => {
  it('given a token, when its owner revokes it, then it is revoked by the owner', () => {
    expect(decideRevoke(given(created), 't1', owner, 'revoked', 'now')).toEqual([
      { type: ACCESS_TOKEN_REVOKED, data: { token_id: 't1', owner_id: 'users/ada', revoked_by: 'users/ada', reason: 'revoked', at: 'now' } },
    ]);
  });

  it('given a token, when an admin revokes it, then it is revoked by the admin; when someone else tries, then 403', () => {
    expect(decideRevoke(given(created), 't1', admin, 'integration_disabled', 'now')).toMatchObject([{ data: { revoked_by: 'users/root', reason: 'integration_disabled' } }]);
    expect(() => decideRevoke(given(created), 't1', other, 'revoked', 'now')).toThrow(expect.objectContaining({ status: 403, code: 'forbidden' }));
  });

  it('given no token, then 404; given a revoked token, then nothing more is appended', () => {
    expect(() => decideRevoke(initialTokenState, 'nope', admin, 'revoked', 'now')).toThrow(expect.objectContaining({ status: 404, message: 'No access token nope' }));
    const revoked = given(created, ...decideRevoke(given(created), 't1', owner, 'revoked', 'now'));
    expect(revoked.revoked).toBe(true);
    expect(decideRevoke(revoked, 't1', owner, 'revoked', 'later')).toEqual([]);
  });
});

describe('recording uses', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  const use = (lastUsedAt: string | null, recordedHere?: number) => decideTokenUse({ tokenId: 't1', lastUsedAt, recordedHere, now });

  it('given a token never used, when it is used, then the use is recorded', () => {
    expect(use(null)).toEqual({ token_id: 't1', at: '2026-03-01T12:00:00.000Z' });
  });

  it('given a use recorded less than a minute ago, here or by another process, then the next is not; a minute later it is', () => {
    expect(use('2026-03-01T11:59:30Z')).toBeUndefined();
    expect(use(null, now - 10_000)).toBeUndefined();
    expect(use('2026-03-01T11:59:00Z')).toBeDefined();
    expect(use('2026-03-01T11:58:00Z', now - 60_000)).toBeDefined();
  });
});

describe('token expiry', () => {
  const now = new Date('2026-03-01T12:00:00Z');

  it('given expires_in or expires_at, then the token expires then; given neither, never', () => {
    expect(tokenExpiry({ expires_in: 3600 }, now)).toBe('2026-03-01T13:00:00.000Z');
    expect(tokenExpiry({ expires_at: '2026-03-02T12:00:00+02:00' }, now)).toBe('2026-03-02T10:00:00.000Z');
    expect(tokenExpiry({}, now)).toBeNull();
    expect(tokenExpiry({ expires_at: null, expires_in: null }, now)).toBeNull();
  });

  it('refuses both, the past, a time without a zone, and more than 10 years, naming the field', () => {
    const refused = (input: Record<string, unknown>, message: RegExp) => expect(() => tokenExpiry(input, now)).toThrow(expect.objectContaining({ status: 400, message: expect.stringMatching(message) }));
    refused({ expires_at: '2027-01-01T00:00:00Z', expires_in: 60 }, /^Send expires_at or expires_in, not both$/);
    refused({ expires_at: '2026-03-01T11:59:59Z' }, /^expires_at must be in the future$/);
    refused({ expires_at: '2026-03-01T12:00:00Z' }, /^expires_at must be in the future$/);
    refused({ expires_at: '2027-01-01' }, /^expires_at must be an ISO 8601 time with a zone/);
    refused({ expires_at: '2040-01-01T00:00:00Z' }, /^expires_at must be at most 10 years ahead$/);
    refused({ expires_in: 0 }, /^expires_in must be a whole number of seconds from 1 to 315360000/);
    refused({ expires_in: MAX_TOKEN_LIFETIME_S + 1 }, /^expires_in/);
    refused({ expires_in: 1.5 }, /^expires_in/);
    expect(tokenExpiry({ expires_in: MAX_TOKEN_LIFETIME_S }, now)).toBe('2036-02-27T12:00:00.000Z');
  });

  it('given a creating token that expires, then the new one expires no later: by default when it does, later is refused', () => {
    const ceiling = '2026-03-01T18:00:00.000Z';
    expect(tokenExpiry({}, now, ceiling)).toBe(ceiling);
    expect(tokenExpiry({ expires_in: 60 }, now, ceiling)).toBe('2026-03-01T12:01:00.000Z');
    expect(() => tokenExpiry({ expires_in: 86_400 }, now, ceiling)).toThrow(expect.objectContaining({ status: 403, message: expect.stringMatching(/expires at 2026-03-01T18:00:00.000Z/) }));
  });
});
