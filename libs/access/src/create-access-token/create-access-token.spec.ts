import { accessDeps, MemoryEventStore, principal, refusal } from '#mds/testing/given';
import { ACCESS_TOKEN_CREATED, INTEGRATION_DISABLED, integrationStream } from '../access.events';
import { CreateIntegrationCommand } from '../create-integration/create-integration.command';
import { CreateIntegrationHandler } from '../create-integration/create-integration.handler';
import { CreateAccessTokenCommand } from './create-access-token.command';
import { CreateAccessTokenHandler } from './create-access-token.handler';

describe('creating an access token as an authenticated caller', () => {
  const deps = accessDeps();

  it('when a user asks for a token of its own, then AccessTokenCreated for them, expiring no later than the token asking', async () => {
    const store = new MemoryEventStore();
    const caller = principal({ ownerId: 'users/ada', roles: ['staff'], expiresAt: '2026-03-02T10:00:00.000Z' });
    const minted = await new CreateAccessTokenHandler(store, deps).execute(new CreateAccessTokenCommand(caller, { name: 'ci' }, 'req-1'));
    expect(minted.access_token).toMatchObject({ owner_id: 'users/ada', name: 'ci', created_by: 'users/ada', expires_at: '2026-03-02T10:00:00.000Z', transferred_roles: [] });
    expect(store.appended()).toEqual([expect.objectContaining({ type: ACCESS_TOKEN_CREATED, metadata: expect.objectContaining({ actor: 'users/ada', token_id: 'token-of-admin', request_id: 'req-1' }) })]);
  });

  it('given an enabled integration, when an admin creates its token with privileges transferred, then the token is the integration\'s with the admin\'s roles', async () => {
    const store = new MemoryEventStore();
    const { integration } = await new CreateIntegrationHandler(store, deps).execute(new CreateIntegrationCommand(principal(), { parameters: { name: 'Shop' } }));
    store.givenSoFar();
    const minted = await new CreateAccessTokenHandler(store, deps).execute(new CreateAccessTokenCommand(principal(), { owner_id: `integrations/${integration.id}`, transfer_privileges: true }));
    expect(minted.access_token).toMatchObject({ owner_id: `integrations/${integration.id}`, transferred_roles: ['admin'] });
  });

  it('given a disabled integration, when a token is asked for it, then it is a conflict', async () => {
    const store = new MemoryEventStore();
    const { integration } = await new CreateIntegrationHandler(store, deps).execute(new CreateIntegrationCommand(principal(), { parameters: { name: 'Shop' } }));
    const id = integration.id as string;
    await store.given(integrationStream(id), { type: INTEGRATION_DISABLED, data: { integration_id: id, by: 'users/admin', at: '2026-03-01T09:00:00.000Z' } });
    expect((await refusal(() => new CreateAccessTokenHandler(store, deps).execute(new CreateAccessTokenCommand(principal(), { owner_id: `integrations/${id}` })))).status).toBe(409);
    expect(store.appended()).toEqual([]);
  });

  it.each([
    ['a staff user asking for an integration\'s token', principal({ roles: ['staff'] }), { owner_id: 'integrations/x' }, 403],
    ['a user asking for someone else\'s token', principal({ roles: ['admin'] }), { owner_id: 'users/someone' }, 403],
    ['an integration token asking for a token', principal({ kind: 'integration', ownerId: 'integrations/x' }), {}, 403],
    ['a scoped token asking for an unscoped one', principal({ scopes: [{ path: '/api/data/customers' }] }), {}, 403],
    ['a scope that is not a path', principal(), { scopes: [{ path: 'nope' }] }, 400],
    ['a token outliving the token asking', principal({ expiresAt: '2026-03-02T10:00:00.000Z' }), { expires_in: 7 * 86_400 }, 403],
  ])('when %s, then it is refused and nothing is appended', async (_, caller, body, status) => {
    const store = new MemoryEventStore();
    expect((await refusal(() => new CreateAccessTokenHandler(store, deps).execute(new CreateAccessTokenCommand(caller, body)))).status).toBe(status);
    expect(store.events).toEqual([]);
  });
});
