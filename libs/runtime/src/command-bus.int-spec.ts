import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus, CqrsModule } from '@nestjs/cqrs';
import { AccessModule } from '#mds/access';
import { ActivityModule, EVENTS_IMPORTED, ImportEventsCommand } from '#mds/activity';
import { CAMPAIGN_EVENTS_IMPORTED, CAMPAIGNS_IMPORTED, CampaignsModule, ImportCampaignEventsCommand, ImportCampaignsCommand } from '#mds/campaigns';
import { CatalogModule, ImportProductsCommand } from '#mds/catalog';
import { CUSTOMERS_IMPORTED, CustomersModule, ImportCustomersCommand } from '#mds/customers';
import { CreateDatatargetCommand, DATATARGET_CREATED, datatargetStream, DatatargetsModule, PostMessagesCommand } from '#mds/datatargets';
import { DATA_QUERY_ACCEPTED, IMPORT_RUN_ACCEPTED, importStream, ImportsModule, RunDataQueryCommand, type ImportAnswer, type ImportRequest } from '#mds/imports';
import { customersProjection, ensureProjectionTables, eventsProjection, salesProjection, waitForProjection } from '#mds/projections';
import { ImportSalesCommand, SalesModule } from '#mds/sales';
import { ImportShopsCommand, loadSettings, SettingsModule, UpdateSettingsCommand } from '#mds/settings';
import { openProjectingRuntime, type TestRuntime } from '#mds/testing/runtime';
import { RuntimeModule } from './runtime.module';

// Every write is a command object handled by its context's @CommandHandler: the composition root and
// the contexts' modules, without HTTP, must route each command to a handler that appends its events.
describe('commands through the CommandBus', () => {
  let rt: TestRuntime;
  let app: INestApplicationContext;
  let bus: CommandBus;

  beforeAll(async () => {
    rt = await openProjectingRuntime({ projections: [customersProjection, eventsProjection, salesProjection] });
    // As the API does before its first request: the read models the ports query exist, projector started or not.
    await ensureProjectionTables(rt.pool, rt.projections);
    @Module({ imports: [RuntimeModule.forRoot(rt), CqrsModule.forRoot(), AccessModule, SettingsModule, ImportsModule, CustomersModule, CatalogModule, ActivityModule, SalesModule, CampaignsModule, DatatargetsModule] })
    class Root {}
    app = await NestFactory.createApplicationContext(Root, { logger: false });
    bus = app.get(CommandBus);
  });
  afterAll(async () => {
    await app?.close();
    await rt?.close();
  });

  const request = (records: unknown[]): ImportRequest => ({ records, atomic: false, caller: 'users/test', requestId: 'r-1' });

  it.each([
    ['customers', () => new ImportCustomersCommand(request([{ external_id: 'C-1', email: 'c1@example.com' }])), CUSTOMERS_IMPORTED],
    ['products', () => new ImportProductsCommand(request([{ external_id: 'P-1', title: 'Shoe', price: 3400 }])), 'ProductsImported'],
    ['events', () => new ImportEventsCommand(request([{ type: 'BROWSE', date: '2026-01-01', email: 'c1@example.com', path: '/' }])), EVENTS_IMPORTED],
    ['sales', () => new ImportSalesCommand(request([{ sale_external_id: 'S-1', sale_date: '2026-01-01', sale_email: 'c1@example.com', product_id: 'P-1', unit_price: 100, quantity: 1 }])), 'SalesImported'],
    ['shops', () => new ImportShopsCommand(request([{ external_id: 'eu', name: 'EU' }])), 'ShopsImported'],
    ['campaigns', () => new ImportCampaignsCommand(request([{ campaign_key: 'WELCOME', kind: 'automated-email', state: 'active' }])), CAMPAIGNS_IMPORTED],
    ['campaign_events', () => new ImportCampaignEventsCommand(request([{ campaign_key: 'WELCOME', type: 'sent', date: '2026-01-01', email: 'c1@example.com' }])), CAMPAIGN_EVENTS_IMPORTED],
  ])('imports %s: one run header and its chunk appended to import-<run_id>, with the caller in the metadata', async (kind, command, chunkType) => {
    const answer: ImportAnswer = await bus.execute(command());
    expect(answer).toMatchObject({ response: 'ok', accepted: 1, rejected: 0 });
    const events = await rt.store.readStream(importStream(answer.run_id));
    expect(events.map((e) => e.type)).toEqual([IMPORT_RUN_ACCEPTED, chunkType]);
    expect(events[0].data).toMatchObject({ kind, accepted: 1 });
    expect(events[1].metadata).toMatchObject({ actor: 'users/test', request_id: 'r-1', run_id: answer.run_id });
  });

  it('consults the read-model ports the composition root provides: an event id no event has is a record error', async () => {
    const answer: ImportAnswer = await bus.execute(new ImportEventsCommand(request([{ id: 999_999, is_deleted: true }, { type: 'BROWSE', date: '2026-01-02', email: 'c1@example.com', path: '/x' }])));
    expect(answer).toMatchObject({ accepted: 1, rejected: 1, errors: [{ index: 0, code: 'not_found' }] });
  });

  it('runs a bulk update as a run of its own, counting its matches on the read model and normalising a sale state', async () => {
    await waitForProjection(rt.pool, 'sales', await rt.store.headPosition());
    const answer = await bus.execute(new RunDataQueryCommand({ datatype: 'sales', match: { sale_external_id: 'S-1' }, update: { sale_state: 'refunded' } }, 'users/test'));
    expect(answer.matched).toBe(1);
    const [event] = await rt.store.readStream(importStream(answer.run_id));
    expect([event.type, (event.data as { query: unknown }).query]).toEqual([DATA_QUERY_ACCEPTED, { datatype: 'sales', match: { sale_external_id: 'S-1' }, update: { sale_state: 'CLOSED' } }]);
  });

  it('manages datatargets and settings', async () => {
    const { datatarget_id: id } = await bus.execute(new CreateDatatargetCommand({ datatarget_type: 'messages', name: ' queue ' }, { actor: 'users/test' }));
    const posted = await bus.execute(new PostMessagesCommand(id, { messages: [{ a: 1 }, { a: 2 }] }, { actor: 'users/test' }));
    expect(posted).toMatchObject({ first_message_number: 1, messages_count: 2 });
    const [created] = await rt.store.readStream(datatargetStream(id), { limit: 1 });
    expect([created.type, (created.data as { name: string }).name]).toEqual([DATATARGET_CREATED, 'queue']);
    await bus.execute(new UpdateSettingsCommand({ timezone: 'Europe/Helsinki' }, 'users/test'));
    expect((await loadSettings(rt.store)).settings.timezone).toBe('Europe/Helsinki');
  });
});
