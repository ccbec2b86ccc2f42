import { MemoryEventStore, refusal } from '#mds/testing/given';
import { DATA_QUERY_ACCEPTED } from '../import-run';
import { RunDataQueryCommand } from './run-data-query.command';
import { RunDataQueryHandler } from './run-data-query.handler';

describe('a bulk update (POST /api/data/query/)', () => {
  it('when customers tagged vip are set can_email false, then DataQueryAccepted records the query and how many it matched', async () => {
    const store = new MemoryEventStore();
    const answer = await new RunDataQueryHandler(store, async () => 3, {}).execute(new RunDataQueryCommand({ datatype: 'customers', match: { tags: 'vip' }, update: { can_email: false } }, 'users/ada', 'key-1', 'req-1'));
    expect(answer).toEqual({ run_id: expect.any(String), matched: 3 });
    expect(store.appended()).toEqual([
      {
        stream: `import-${answer.run_id}`,
        type: DATA_QUERY_ACCEPTED,
        data: expect.objectContaining({ kind: 'query', query: { datatype: 'customers', match: { tags: 'vip' }, update: { can_email: false } }, matched: 3, idempotency_key: 'key-1' }),
        metadata: expect.objectContaining({ actor: 'users/ada' }),
      },
    ]);
  });

  it("when the datatype's context has a rule for a value, then the update is recorded as the rule makes it", async () => {
    const store = new MemoryEventStore();
    await new RunDataQueryHandler(store, async () => 1, { sales: (key, value) => (key === 'sale_state' && value === 'done' ? 'completed' : value) }).execute(
      new RunDataQueryCommand({ datatype: 'sales', match: { sale_external_id: 's1' }, update: { sale_state: 'done' } }, 'users/ada'),
    );
    expect(store.appended()[0].data).toMatchObject({ query: { update: { sale_state: 'completed' } } });
  });

  it('when the query is not {datatype, match, update}, then it is refused and nothing is appended', async () => {
    const store = new MemoryEventStore();
    expect((await refusal(() => new RunDataQueryHandler(store, async () => 0, {}).execute(new RunDataQueryCommand({ datatype: 'planets', match: {}, update: {} }, 'users/ada')))).status).toBe(400);
    expect(store.events).toEqual([]);
  });
});
