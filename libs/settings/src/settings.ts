import type { EventStore } from '../../event-store/src';
import { invalidRequest } from '../../platform/src';

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
}

export interface SettingsChanged {
  changes: Partial<Settings>;
  by: string;
  at: string;
}

export const DEFAULT_SETTINGS: Settings = { timezone: 'UTC', default_country: null, default_currency: 'EUR', company_prefixes: [], custom_event_types: [] };

/** The spec's event types (libs/activity holds the rules of each). */
const BUILT_IN_EVENT_TYPES = ['BROWSE', 'MAIL_SUBSCRIBE', 'MAIL_UNSUBSCRIBE', 'ORDER_SHIPPED', 'BASKET_ADD', 'SENTIMENT', 'SMS_SUBSCRIBE', 'SMS_UNSUBSCRIBE'];

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const regions = new Intl.DisplayNames(['en'], { type: 'region' });
const currencies = new Set(Intl.supportedValuesOf('currency'));

function nameList(value: unknown, field: string, pattern: RegExp, what: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalidRequest(`${field} must be a list of strings`);
  const out = [...new Set(value as string[])];
  const bad = out.find((v) => !pattern.test(v));
  if (bad !== undefined) throw invalidRequest(`${field}: "${bad}" is not ${what}`);
  return out;
}

/** Validates a PATCH body: only known keys, each checked; returns the normalised changes. */
export function validateSettingsPatch(patch: unknown): Partial<Settings> {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw invalidRequest('The body must be a JSON object of settings');
  const changes: Partial<Settings> = {};
  for (const [key, value] of Object.entries(patch)) {
    switch (key) {
      case 'timezone':
        if (typeof value !== 'string' || !isTimeZone(value)) throw invalidRequest(`timezone: "${String(value)}" is not an IANA time zone such as Europe/Amsterdam`);
        changes.timezone = value;
        break;
      case 'default_country': {
        if (value === null || value === '') {
          changes.default_country = null;
          break;
        }
        const code = typeof value === 'string' ? value.toUpperCase() : '';
        if (!/^[A-Z]{2}$/.test(code) || regions.of(code) === code) throw invalidRequest(`default_country: "${String(value)}" is not an ISO 3166 country code`);
        changes.default_country = code;
        break;
      }
      case 'default_currency': {
        const code = typeof value === 'string' ? value.toUpperCase() : '';
        if (!currencies.has(code)) throw invalidRequest(`default_currency: "${String(value)}" is not an ISO 4217 currency code`);
        changes.default_currency = code;
        break;
      }
      case 'company_prefixes':
        changes.company_prefixes = nameList(value, key, /^[A-Za-z][A-Za-z0-9]{0,31}$/, 'a company name (letters and digits, no "__")');
        break;
      case 'custom_event_types': {
        const types = nameList(value, key, /^[A-Z][A-Z0-9_]{0,63}$/, 'a capital-letter event type');
        const builtIn = types.find((t) => BUILT_IN_EVENT_TYPES.includes(t));
        if (builtIn) throw invalidRequest(`custom_event_types: ${builtIn} is a built-in event type`);
        changes.custom_event_types = types;
        break;
      }
      default:
        throw invalidRequest(`Unknown setting "${key}"; settings are ${Object.keys(DEFAULT_SETTINGS).join(', ')}`);
    }
  }
  if (Object.keys(changes).length === 0) throw invalidRequest('No settings to change');
  return changes;
}

export async function loadSettings(store: EventStore): Promise<{ settings: Settings; revision: number | 'no_stream' }> {
  const events = await store.readStream(SETTINGS_STREAM);
  const settings = events.reduce<Settings>((s, e) => (e.type === SETTINGS_CHANGED ? { ...s, ...(e.data as SettingsChanged).changes } : s), { ...DEFAULT_SETTINGS });
  return { settings, revision: events.length === 0 ? 'no_stream' : events[events.length - 1].revision };
}
