import type { EventStore } from '#mds/event-store';

export const SETTINGS_STREAM = 'settings';
export const SETTINGS_CHANGED = 'SettingsChanged';

export interface Settings {
  /** IANA zone applied to datetimes sent without one. */
  timezone: string;
  /** ISO 3166-1 alpha-2, for normalising phone numbers; null when unset. */
  default_country: string | null;
  /** ISO 4217. */
  default_currency: string;
  /** Allowed `<COMPANY>` names of `<COMPANY>__<field>` keys; empty allows any. */
  company_prefixes: string[];
  /** Company-specific customer event types accepted besides the built-in ones. */
  custom_event_types: string[];
  /**
   * `<COMPANY>__<field>` keys whose values are personal (a loyalty card number, a second address):
   * kept apart from the log like e-mails and names, and forgotten with the customer.
   */
  personal_company_fields: string[];
}

export interface SettingsChanged {
  changes: Partial<Settings>;
  by: string;
  at: string;
}

export const DEFAULT_SETTINGS: Settings = { timezone: 'UTC', default_country: null, default_currency: 'EUR', company_prefixes: [], custom_event_types: [], personal_company_fields: [] };

/** The spec's built-in event types (libs/activity holds the rules of each): custom types may not reuse their names. */
export const RESERVED_EVENT_TYPES = ['BROWSE', 'MAIL_SUBSCRIBE', 'MAIL_UNSUBSCRIBE', 'ORDER_SHIPPED', 'BASKET_ADD', 'SENTIMENT', 'SMS_SUBSCRIBE', 'SMS_UNSUBSCRIBE'];

/** `<COMPANY>` of `<COMPANY>__<field>` keys: letters and digits, so "__" stays the separator. */
export const COMPANY_PREFIX = /^[A-Za-z][A-Za-z0-9]{0,31}$/;
/** A `<COMPANY>__<field>` key. */
export const COMPANY_FIELD = /^[A-Za-z][A-Za-z0-9]{0,31}__[A-Za-z0-9_]{1,64}$/;
/** A custom event type: capital letters, digits and underscores, like the built-in ones. */
export const CUSTOM_EVENT_TYPE = /^[A-Z][A-Z0-9_]{0,63}$/;

export function isTimeZone(zone: unknown): boolean {
  if (typeof zone !== 'string') return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const regions = new Intl.DisplayNames(['en'], { type: 'region' });
const currencies = new Set(Intl.supportedValuesOf('currency'));

/** An ISO 3166 alpha-2 code Intl knows (any case). */
export const isCountryCode = (code: unknown): boolean => typeof code === 'string' && /^[A-Za-z]{2}$/.test(code) && regions.of(code.toUpperCase()) !== code.toUpperCase();
/** An ISO 4217 code (any case). */
export const isCurrencyCode = (code: unknown): boolean => typeof code === 'string' && currencies.has(code.toUpperCase());

export async function loadSettings(store: EventStore): Promise<{ settings: Settings; revision: number | 'no_stream' }> {
  const events = await store.readStream(SETTINGS_STREAM);
  const settings = events.reduce<Settings>((s, e) => (e.type === SETTINGS_CHANGED ? { ...s, ...(e.data as SettingsChanged).changes } : s), { ...DEFAULT_SETTINGS });
  return { settings, revision: events.length === 0 ? 'no_stream' : events[events.length - 1].revision };
}
