import { EVENTS_IMPORTED } from '#mds/activity';
import type { customerMergeModel as model } from '#mds/customers';
import type { ReadDeps } from '../runtime/read-side';
import { changePlace, foldCustomer, type ChangeType, type FoldedChange } from './customer-history';

/** The fields whose changes are consent: the permissions, and mailing-list membership. */
export const CONSENT_FIELDS = ['can_email', 'can_sms', 'can_post', 'can_push', 'can_profile', 'mailing_lists'] as const;
type ConsentField = (typeof CONSENT_FIELDS)[number];

/** A value before or after: a permission, a list of mailing lists, or null when the customer had none (retrieval shows `false`, no lists). */
type ConsentValue = model.Json | null;

export interface ConsentChange {
  position: number;
  at: string;
  run_id: string | null;
  /** import, subscription (a MAIL_/SMS_ subscription event) or bulk_update. */
  type: ChangeType;
  /** The event type of a subscription change (MAIL_SUBSCRIBE …); absent for imports and bulk updates. */
  event_type?: string;
  /** What the client named as the consent's source on the record (or the bulk update), else null. */
  consent_source: string | null;
  /** Each consent field the change changed, with its value before and after. */
  fields: Partial<Record<ConsentField, { before: ConsentValue; after: ConsentValue }>>;
}

const same = (a: ConsentValue, b: ConsentValue) => JSON.stringify(a) === JSON.stringify(b);

/** What a change did to consent (undefined: nothing): a field counts when its stored value differs after it. */
export function consentChange(c: FoldedChange): ConsentChange | undefined {
  const fields: ConsentChange['fields'] = {};
  for (const field of CONSENT_FIELDS) {
    const before = c.before?.data[field] ?? null;
    const after = c.after.data[field] ?? null;
    if (!same(before, after)) fields[field] = { before, after };
  }
  if (Object.keys(fields).length === 0) return undefined;
  const { actor: _actor, ...place } = changePlace(c.event);
  const source = c.step.record.consent_source;
  const sent = c.event.type === EVENTS_IMPORTED ? (c.event.data as { records: Array<{ type?: unknown }> }).records[c.n - 1]?.type : undefined;
  return {
    ...place,
    type: c.step.type,
    ...(typeof sent === 'string' ? { event_type: sent } : {}),
    consent_source: typeof source === 'string' && source !== '' ? source : null,
    fields,
  };
}

/**
 * One customer's consent history (by external id), oldest first: each change of a permission or of
 * the mailing lists, from the customer's changes in the log (foldCustomer), with its time, run and
 * the source the client named. `from`/`limit` page it. Undefined when no customer has the external id
 * now (never had it, or forgotten: the records behind it are redaction markers then).
 */
export async function customerConsent(read: ReadDeps, externalId: string, options: { from?: number; limit?: number } = {}): Promise<{ changes: ConsentChange[]; total: number } | undefined> {
  const folded = await foldCustomer(read, externalId);
  if (!folded) return undefined;
  const all = folded.changes.map(consentChange).filter((c): c is ConsentChange => c !== undefined);
  const from = options.from ?? 0;
  return { changes: all.slice(from, options.limit === undefined ? undefined : from + options.limit), total: all.length };
}
