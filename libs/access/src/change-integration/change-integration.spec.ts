import { accessDeps, MemoryEventStore, principal, refusal } from '#mds/testing/given';
import { actorOf } from '../access.deps';
import { ACCESS_TOKEN_REVOKED, INTEGRATION_DISABLED, INTEGRATION_ENABLED, integrationStream, tokenStream } from '../access.events';
import { mintToken } from '../create-access-token/mint-token';
import { CreateIntegrationCommand } from '../create-integration/create-integration.command';
import { CreateIntegrationHandler } from '../create-integration/create-integration.handler';
import { ChangeIntegrationCommand } from './change-integration.command';
import { ChangeIntegrationHandler } from './change-integration.handler';

describe('enabling and disabling an integration', () => {
  const deps = accessDeps();
  const admin = actorOf(principal(), 'req-1');

  /** Given an integration with two tokens; the read model (the OWNER_TOKENS port) lists them. */
  async function given() {
    const store = new MemoryEventStore();
    const { integration } = await new CreateIntegrationHandler(store, deps).execute(new CreateIntegrationCommand(principal(), { parameters: { name: 'Shop' } }));
    const id = integration.id as string;
    const tokens: string[] = [];
    for (const name of ['a', 'b']) tokens.push((await mintToken(store, { ownerId: `integrations/${id}`, name, createdBy: 'users/admin', scopes: [], transferredRoles: [], now: '2026-03-01T09:00:00.000Z' })).access_token.id);
    store.givenSoFar();
    return { store, id, tokens, handler: new ChangeIntegrationHandler(store, deps, async (owner) => (owner === `integrations/${id}` ? tokens : [])) };
  }

  it('given an enabled integration, when it is disabled, then IntegrationDisabled and every token of it revoked', async () => {
    const { store, id, tokens, handler } = await given();
    const result = await handler.execute(new ChangeIntegrationCommand(id, false, admin));
    expect(result.revoked).toEqual(tokens);
    expect(store.appended().map((e) => [e.stream, e.type])).toEqual([
      [integrationStream(id), INTEGRATION_DISABLED],
      [tokenStream(tokens[0]), ACCESS_TOKEN_REVOKED],
      [tokenStream(tokens[1]), ACCESS_TOKEN_REVOKED],
    ]);
    expect(store.appended()[1].data).toMatchObject({ reason: 'integration_disabled', revoked_by: 'users/admin' });
    expect(result.position).toBe(store.events.length);
  });

  it('given a disabled integration, when it is enabled, then IntegrationEnabled (its revoked tokens stay revoked); enabling again changes nothing', async () => {
    const { store, id, handler } = await given();
    await handler.execute(new ChangeIntegrationCommand(id, false, admin));
    store.givenSoFar();
    await handler.execute(new ChangeIntegrationCommand(id, true, admin));
    expect(store.appended().map((e) => e.type)).toEqual([INTEGRATION_ENABLED]);
    store.givenSoFar();
    await handler.execute(new ChangeIntegrationCommand(id, true, admin));
    expect(store.appended()).toEqual([]);
  });

  it('given no such integration, then it is not found', async () => {
    const { handler } = await given();
    expect((await refusal(() => handler.execute(new ChangeIntegrationCommand('nope', false, admin)))).status).toBe(404);
  });
});
