import { eventStoreContract } from '../contract/event-store.contract';
import { EsdbEventStore } from './esdb-event-store';

// No EventStoreDB server can be installed on the project's machines (not on npm or Debian, no Docker
// engine); set EVENTSTORE_URL to run the same contract against a real one.
const url = process.env.EVENTSTORE_URL;

eventStoreContract(
  'eventstoredb',
  async () => {
    const store = new EsdbEventStore(url!);
    return {
      store,
      withUpcasters: (upcasters) => new EsdbEventStore(url!, { upcasters }),
      teardown: () => store.close(),
    };
  },
  url ? undefined : 'EVENTSTORE_URL is not set',
);
