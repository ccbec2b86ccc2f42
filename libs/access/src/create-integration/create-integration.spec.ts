import { accessDeps, MemoryEventStore, principal, refusal } from '#mds/testing/given';
import { INTEGRATION_CREATED, integrationStream } from '../access.events';
import { CreateIntegrationCommand } from './create-integration.command';
import { CreateIntegrationHandler } from './create-integration.handler';

describe('creating an integration', () => {
  const deps = accessDeps();

  it('when an admin creates one, then IntegrationCreated opens its stream, enabled, with the parameters given', async () => {
    const store = new MemoryEventStore();
    const { integration, position } = await new CreateIntegrationHandler(store, deps).execute(
      new CreateIntegrationCommand(principal(), { integration_name: 'shop', parameters: { name: 'Webshop', description: 'orders' } }, 'req-1'),
    );
    expect(position).toBe(1);
    const [event] = store.appended();
    expect(event).toMatchObject({
      stream: integrationStream(integration.id as string),
      type: INTEGRATION_CREATED,
      data: { integration_name: 'shop', parameters: { name: 'Webshop', description: 'orders' }, enabled: true, created_by: 'users/admin', created_at: '2026-03-01T10:00:00.000000Z' },
      metadata: { actor: 'users/admin', token_id: 'token-of-admin', request_id: 'req-1' },
    });
    expect(store.appends[0].options).toEqual({ expectedRevision: 'no_stream' });
  });

  it("when an older plugin sends {name, description}, then they are the integration's parameters", async () => {
    const store = new MemoryEventStore();
    await new CreateIntegrationHandler(store, deps).execute(new CreateIntegrationCommand(principal(), { name: 'Legacy', description: 'from 2021' }));
    expect(store.appended()[0].data).toMatchObject({ parameters: { name: 'Legacy', description: 'from 2021' } });
  });

  it('when the parameters have no name, then it is refused naming the field, and nothing is appended', async () => {
    const store = new MemoryEventStore();
    expect(await refusal(() => new CreateIntegrationHandler(store, deps).execute(new CreateIntegrationCommand(principal(), { parameters: { description: 'x' } })))).toMatchObject({ status: 400, message: 'parameters.name is required' });
    expect(await refusal(() => new CreateIntegrationHandler(store, deps).execute(new CreateIntegrationCommand(principal(), { parameters: [] })))).toMatchObject({ status: 400 });
    expect(store.events).toEqual([]);
  });
});
