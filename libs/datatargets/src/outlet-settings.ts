import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { invalidRequest } from '#mds/platform';
import { isLocalhostName, privateDestination } from './delivery/destination';
import type { DeliveryOptions } from './delivery/webhook-client';

/** The OUTLET_* settings the outlet commands take (RuntimeModule answers with the config's `outlets`). */
export const OUTLET_SETTINGS = Symbol('OUTLET_SETTINGS');

export type AddressLookup = NonNullable<DeliveryOptions['lookup']>;

export interface OutletSettings {
  /** OUTLET_ALLOW_PRIVATE: outlets may point at loopback and private addresses. */
  allowPrivate: boolean;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** Replaces DNS (tests). */
  lookup?: AddressLookup;
}

/** How long creating or changing an outlet waits for its URL's name to resolve. */
export const DESTINATION_LOOKUP_MS = 2000;

/**
 * Refuses an outlet URL the worker could never deliver to while OUTLET_ALLOW_PRIVATE is off (a
 * private or loopback literal, localhost, a name resolving only to such addresses), so the mistake
 * shows at creation rather than as failed attempts. A name that does not resolve (in time) passes:
 * it may resolve later, and the worker checks the address of every connection anyway.
 */
export async function refusePrivateDestination(url: string, settings: Pick<OutletSettings, 'allowPrivate' | 'lookup'>, timeoutMs = DESTINATION_LOOKUP_MS): Promise<void> {
  if (settings.allowPrivate) return;
  const { hostname } = new URL(url);
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  const resolved = isIP(bare) || isLocalhostName(bare) ? undefined : await addressesOf(bare, settings.lookup ?? systemLookup, timeoutMs);
  const problem = privateDestination(hostname, resolved);
  if (problem !== undefined) throw invalidRequest(`request.url: ${problem}; webhooks reach loopback and private addresses only with OUTLET_ALLOW_PRIVATE=true`);
}

const systemLookup = (hostname: string) => dnsLookup(hostname, { all: true });

/** The name's addresses, or undefined when it does not resolve within `timeoutMs`. */
async function addressesOf(hostname: string, lookup: (hostname: string) => Promise<Array<{ address: string }>>, timeoutMs: number): Promise<string[] | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    const found = await Promise.race([lookup(hostname).catch(() => undefined), timeout]);
    return found?.map((entry) => entry.address);
  } finally {
    clearTimeout(timer);
  }
}
