import { CreateDatatargetCommand, CreateDatatargetHandler, CreateOutletCommand, CreateOutletHandler, type OutletDefinition } from '#mds/datatargets';
import { SecretBox } from '#mds/platform';
import { MemoryEventStore } from './memory-event-store';

export const meta = { actor: 'users/admin', tokenId: 't1', requestId: 'req-1' };
export const secrets = new SecretBox(Buffer.alloc(32, 9));
/** OUTLET_ALLOW_PRIVATE off, and a DNS that answers every name with a public address (no network in unit tests). */
export const outletSettings = { allowPrivate: false, lookup: async () => [{ address: '93.184.215.14', family: 4 as const }] };

/** Given a messages datatarget (and, asked, a webhook outlet on it): the log so far is the given. */
export async function givenDatatarget(options: { outlet?: boolean } = {}): Promise<{ store: MemoryEventStore; id: string; outlet?: OutletDefinition }> {
  const store = new MemoryEventStore();
  const { datatarget_id: id } = await new CreateDatatargetHandler(store).execute(new CreateDatatargetCommand({ datatarget_type: 'messages', name: 'orders' }, meta));
  let outlet: OutletDefinition | undefined;
  if (options.outlet) {
    const { outlet_id: outletId } = await new CreateOutletHandler(store, secrets, outletSettings).execute(
      new CreateOutletCommand(id, { request: { url: 'https://hooks.example.com/in?key=query-key-7Qz', headers: { authorization: 'Bearer s3cret' }, content: '{(data)}' } }, meta),
    );
    outlet = (store.events.find((e) => e.type === 'OutletCreated' && (e.data as { outlet: OutletDefinition }).outlet.outlet_id === outletId)!.data as { outlet: OutletDefinition }).outlet;
  }
  store.givenSoFar();
  return { store, id, outlet };
}
