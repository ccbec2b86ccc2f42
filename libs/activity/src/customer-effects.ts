import { EVENT_PHONE_KEY, type EventRecord } from './event-import';

/** Customer fields that may accompany an event; a subscription copies them to the customer. */
const ACCOMPANYING = ['first_name', 'last_name', 'street_address', 'zip_code', 'country', 'language', 'company'];

/** Marks a patch that may update a customer but never creates one ("$" keys are matching aids). */
export const NO_CREATE_KEY = '$no_create';
/** The event's customer_token, matched against customers' cb_token when nothing else identifies it. */
export const TOKEN_KEY = '$token';

/**
 * What an event does to its customer, as a customer-import patch the customers projection applies
 * in log order (undefined: nothing). Subscriptions create the customer when none matches and the
 * event carries the contact subscribed (e-mail, phone); unsubscriptions never create one.
 */
export function customerEffect(event: EventRecord): Record<string, unknown> | undefined {
  const ids: Record<string, unknown> = {};
  if (event.customer_id !== undefined) ids.external_id = event.customer_id;
  if (event.email !== undefined) ids.email = event.email;
  if (event.phone_number !== undefined) {
    ids.phone_number = event.phone_number;
    ids[EVENT_PHONE_KEY] = event[EVENT_PHONE_KEY];
  }
  if (event.customer_token !== undefined) ids[TOKEN_KEY] = event.customer_token;
  const lists = (event.mailing_lists as string[] | undefined) ?? [];
  const accompanying = Object.fromEntries(ACCOMPANYING.filter((k) => event[k] !== undefined).map((k) => [k, event[k]]));
  switch (event.type) {
    case 'MAIL_SUBSCRIBE':
      return { ...ids, ...accompanying, can_email: true, 'mailing_lists.add': lists, ...(event.email === undefined ? { [NO_CREATE_KEY]: true } : {}) };
    case 'MAIL_UNSUBSCRIBE':
      // ["_"] leaves every list and withdraws the e-mail permission; otherwise only the lists named.
      return lists.includes('_') ? { ...ids, mailing_lists: [], can_email: false, [NO_CREATE_KEY]: true } : { ...ids, 'mailing_lists.remove': lists, [NO_CREATE_KEY]: true };
    case 'SMS_SUBSCRIBE':
      return { ...ids, ...accompanying, can_sms: true, ...(event.phone_number === undefined ? { [NO_CREATE_KEY]: true } : {}) };
    case 'SMS_UNSUBSCRIBE':
      return { ...ids, can_sms: false, [NO_CREATE_KEY]: true };
    default:
      return undefined;
  }
}
