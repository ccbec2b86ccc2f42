export const CUSTOMERS_IMPORTED = 'CustomersImported';

/**
 * A customer record's personal fields: names, contact details, address, birth date and the shop's
 * cb_token. They never enter the log (see PERSONAL_FIELDS in libs/runtime); external_id does, being
 * the shop's own key.
 */
export const CUSTOMER_PERSONAL_FIELDS = [
  'first_name',
  'last_name',
  'email',
  'phone_number',
  // The phone as matching compares it (normalised at import), a matching aid beside phone_number.
  '$phone',
  'street_address',
  'street_name',
  'house_number',
  'house_number_addition',
  'zip_code',
  'city',
  'birth_date',
  'cb_token',
  // Free text about a person's consent may name them: kept beside the log, so forgetting reaches it.
  'consent_source',
] as const;

/**
 * Keys of a record that are about the change, not the customer: kept with the record in the log (its
 * history and consent history show them), never merged into the customer.
 */
export const CHANGE_ONLY_FIELDS = ['consent_source'] as const;

/** An auditor or admin took a customer's data out (`GET /api/data/customers/{external_id}/export/`, `mds customers export`). */
export const CUSTOMER_DATA_EXPORTED = 'CustomerDataExported';

/**
 * Who read whom, for the log, which keeps it forever: the service's numeric customer id only, never
 * the external id or anything personal (who and when are the event's actor and time).
 */
export interface CustomerDataExported {
  customer_id: number;
  format: 'json' | 'ndjson';
}

/** Every export of one customer: one stream per customer id. */
export const customerExportStream = (customerId: number) => `customer-export-${customerId}`;
