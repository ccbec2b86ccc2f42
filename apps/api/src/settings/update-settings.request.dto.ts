import { Transform } from 'class-transformer';
import { IsArray, IsOptional, IsString } from 'class-validator';
import { COMPANY_FIELD, COMPANY_PREFIX, CUSTOM_EVENT_TYPE, DEFAULT_SETTINGS, isCountryCode, isCurrencyCode, isTimeZone } from '#mds/settings';
import { Satisfies, UnknownKeys, WhenSent } from '../platform/request-validation';

const upper = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value);
const distinct = ({ value }: { value: unknown }) => (Array.isArray(value) ? [...new Set(value)] : value);

/** A list of names, each matching `pattern` (repeats dropped); the message names the first that does not. */
function NameList(field: string, pattern: RegExp, what: string): PropertyDecorator {
  const decorators = [
    WhenSent(),
    Transform(distinct),
    IsArray({ message: `${field} must be a list of strings` }),
    IsString({ each: true, message: `${field} must be a list of strings` }),
    Satisfies(
      (list) => (list as unknown[]).every((v) => typeof v === 'string' && pattern.test(v)),
      (list) => `${field}: "${String((list as unknown[]).find((v) => typeof v !== 'string' || !pattern.test(v)))}" is not ${what}`,
    ),
  ];
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/** `PATCH /api/settings/`: only the keys sent change; each is checked by the settings context's rules. */
@UnknownKeys((key) => `Unknown setting "${key}"; settings are ${Object.keys(DEFAULT_SETTINGS).join(', ')}`)
export class UpdateSettingsRequest {
  @WhenSent()
  @Satisfies(isTimeZone, (v) => `timezone: "${String(v)}" is not an IANA time zone such as Europe/Amsterdam`)
  timezone?: string;

  /** null or "" unsets it. */
  @IsOptional()
  @Transform(({ value }) => (value === '' ? null : upper({ value })))
  @Satisfies(isCountryCode, (v) => `default_country: "${String(v)}" is not an ISO 3166 country code`)
  default_country?: string | null;

  @WhenSent()
  @Transform(upper)
  @Satisfies(isCurrencyCode, (v) => `default_currency: "${String(v)}" is not an ISO 4217 currency code`)
  default_currency?: string;

  @NameList('company_prefixes', COMPANY_PREFIX, 'a company name (letters and digits, no "__")')
  company_prefixes?: string[];

  @NameList('custom_event_types', CUSTOM_EVENT_TYPE, 'a capital-letter event type')
  custom_event_types?: string[];

  @NameList('personal_company_fields', COMPANY_FIELD, 'a <COMPANY>__<field> key')
  personal_company_fields?: string[];
}
