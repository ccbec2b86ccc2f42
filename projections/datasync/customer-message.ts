import type { customerMergeModel as model } from '#mds/customers';
import { customerView } from '../customers/customer-history';

/**
 * A customer as its message shows it: its fields as retrieval shows them (messages of every datatype
 * carry the record's fields, without retrieval's `id` and `updated_at`); deleted, its identifiers and
 * `is_deleted: true`; forgotten, `is_forgotten: true` with the external id it had (not personal
 * here), so the synchronised system can forget it too.
 */
export function customerMessage(customer: model.Customer, before: model.Customer | undefined): Record<string, unknown> {
  if (customer.is_forgotten) return { ...(before?.external_id ? { external_id: before.external_id } : {}), is_forgotten: true };
  if (customer.is_deleted) {
    const ids = Object.fromEntries(['external_id', 'email', 'phone_number'].filter((k) => customer.data[k] !== undefined).map((k) => [k, customer.data[k]]));
    return { ...ids, is_deleted: true };
  }
  return Object.fromEntries(Object.entries(customerView(customer, { stamped: false })).filter(([k]) => !k.startsWith('$')));
}
