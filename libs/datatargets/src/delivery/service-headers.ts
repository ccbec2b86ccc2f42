import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The first and last message numbers a request carries (absent on a test send, which carries none). */
export const FIRST_MESSAGE_HEADER = 'webhook-first-message';
export const LAST_MESSAGE_HEADER = 'webhook-last-message';
/** The datatype of a datasync datatarget's messages (absent for a messages datatarget). */
export const DATATYPE_HEADER = 'webhook-datatype';

/** Headers the service sets on every request, beside webhook-id, webhook-timestamp and webhook-signature. */
export const SERVICE_HEADERS = [FIRST_MESSAGE_HEADER, LAST_MESSAGE_HEADER, DATATYPE_HEADER] as const;

/** The service's package.json, found upwards of this file: the same from the sources and from dist/. */
function serviceVersion(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'marketing-data-service' && pkg.version) return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    if (path.dirname(dir) === dir) return '0.0.0';
  }
}

export const USER_AGENT = `marketing-data-service/${serviceVersion()}`;

/**
 * The headers of a delivery: the outlet's own, the JSON content type, the service's User-Agent (unless
 * the outlet sets one), the message numbers of the batch and the datatarget's datatype. They are
 * part of the head the outlet log keeps, so the rebuilt request shows them as sent.
 */
export function deliveryHeaders(outletHeaders: Record<string, string>, about: { first?: number; last?: number; datatype?: string | null }): Record<string, string> {
  const own = Object.keys(outletHeaders).some((name) => name.toLowerCase() === 'user-agent');
  // An outlet defined before these names were the service's may carry one: the service's value wins.
  const kept = Object.entries(outletHeaders).filter(([name]) => !(SERVICE_HEADERS as readonly string[]).includes(name.toLowerCase()));
  return {
    ...Object.fromEntries(kept),
    'content-type': 'application/json',
    ...(own ? {} : { 'user-agent': USER_AGENT }),
    ...(about.first !== undefined ? { [FIRST_MESSAGE_HEADER]: String(about.first) } : {}),
    ...(about.last !== undefined ? { [LAST_MESSAGE_HEADER]: String(about.last) } : {}),
    ...(about.datatype ? { [DATATYPE_HEADER]: about.datatype } : {}),
  };
}
