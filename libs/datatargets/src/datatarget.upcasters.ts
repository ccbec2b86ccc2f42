import type { Upcaster } from '#mds/event-store';
import type { SecretBox } from '#mds/platform';
import { createHash } from 'node:crypto';
import {
  DELIVERY_ATTEMPTED,
  DELIVERY_ATTEMPTED_SCHEMA,
  OUTLET_CHANGED,
  OUTLET_CREATED,
  OUTLET_SCHEMA,
  type DeliveryAttempted,
  type OutletChanged,
  type OutletCreated,
  type OutletDefinition,
} from './datatarget.events';
import { splitCredentials } from './outlet-credentials';

/** A request of schema 1 (credentials in clear) with its credentials taken out and sealed. */
function sealed(secrets: SecretBox, request: OutletDefinition['request'], type: string): { request: OutletDefinition['request']; credentials_sealed: string | null } {
  const split = splitCredentials(request);
  return { request: split.request, credentials_sealed: split.credentials ? secrets.sealStable(JSON.stringify(split.credentials), type) : null };
}

/**
 * OutletCreated and OutletChanged of schema 1 kept credential headers and URL query credentials in
 * clear: sealed as they are read, the same on every read (a rebuild builds the same outlets table).
 */
export const datatargetUpcasters = (secrets: SecretBox): Upcaster[] => [
  {
    // Schema 1 kept the reply's text in the event: readers of the log get its size and hash instead
    // (its bytes stay in the log; the outlet log read model keeps the text, where forgetting reaches it).
    type: DELIVERY_ATTEMPTED,
    fromVersion: 1,
    toVersion: DELIVERY_ATTEMPTED_SCHEMA,
    upcast(data) {
      const { http_reply: text, ...rest } = data as DeliveryAttempted;
      return { ...rest, reply: typeof text === 'string' ? { bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex') } : null };
    },
  },
  {
    type: OUTLET_CREATED,
    fromVersion: 1,
    toVersion: OUTLET_SCHEMA,
    upcast(data) {
      const d = data as OutletCreated;
      return { ...d, outlet: { ...d.outlet, ...sealed(secrets, d.outlet.request, OUTLET_CREATED) } };
    },
  },
  {
    type: OUTLET_CHANGED,
    fromVersion: 1,
    toVersion: OUTLET_SCHEMA,
    upcast(data) {
      const d = data as OutletChanged;
      // A change's request is whole (the parts it did not send were filled from the outlet's).
      return d.changes.request ? { ...d, changes: { ...d.changes, ...sealed(secrets, d.changes.request, OUTLET_CHANGED) } } : d;
    },
  },
];
