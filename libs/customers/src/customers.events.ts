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
] as const;
