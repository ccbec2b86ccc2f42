import { accessDeps, MemoryEventStore, principal, refusal } from '#mds/testing/given';
import { DATASOURCE_CREATED, integrationStream } from '../access.events';
import { CreateIntegrationCommand } from '../create-integration/create-integration.command';
import { CreateIntegrationHandler } from '../create-integration/create-integration.handler';
import { CreateDatasourceCommand } from './create-datasource.command';
import { CreateDatasourceHandler } from './create-datasource.handler';

describe('creating a datasource of an integration (legacy)', () => {
  const deps = accessDeps();

  it('given an integration, when a customers datasource is created, then DatasourceCreated goes into its stream at the revision read', async () => {
    const store = new MemoryEventStore();
    const { integration } = await new CreateIntegrationHandler(store, deps).execute(new CreateIntegrationCommand(principal(), { parameters: { name: 'Shop' } }));
    store.givenSoFar();
    const id = integration.id as string;
    const { datasource } = await new CreateDatasourceHandler(store, deps).execute(new CreateDatasourceCommand(principal(), { name: 'customers feed', integration: id, datatype: 'customers' }));
    expect(store.appended()).toEqual([
      {
        stream: integrationStream(id),
        type: DATASOURCE_CREATED,
        data: { datasource_id: expect.any(String), integration_id: id, name: 'customers feed', datatype: 'customers', created_by: 'users/admin', created_at: '2026-03-01T10:00:00.000Z' },
        metadata: expect.objectContaining({ actor: 'users/admin' }),
      },
    ]);
    expect(store.appends[0].options).toEqual({ expectedRevision: 0 });
    expect(datasource).toMatchObject({ name: 'customers feed', datatype: 'customers' });
  });

  it.each([
    ['no such integration', { name: 'x', integration: 'nope', datatype: 'customers' }, 422],
    ['an unknown datatype', { name: 'x', integration: 'i', datatype: 'orders' }, 400],
    ['no name', { integration: 'i', datatype: 'customers' }, 400],
  ])('when given %s, then it is refused and nothing is appended', async (_, body, status) => {
    const store = new MemoryEventStore();
    expect((await refusal(() => new CreateDatasourceHandler(store, deps).execute(new CreateDatasourceCommand(principal(), body)))).status).toBe(status);
    expect(store.events).toEqual([]);
  });
});
