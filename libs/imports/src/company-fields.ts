import { RecordProblem } from './import-run';

/** What the company-key check needs of the settings (libs/settings builds on imports, not the reverse). */
export interface CompanyPrefixes {
  readonly company_prefixes: readonly string[];
}

/** True for a `<COMPANY>__<field>` key; throws when it is malformed or its company is not among the settings' company_prefixes. */
export function isCompanyField(key: string, settings: CompanyPrefixes): boolean {
  if (!key.includes('__')) return false;
  const company = key.slice(0, key.indexOf('__'));
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(company) || key.endsWith('__')) throw new RecordProblem(key, 'invalid_key', `"${key}" is not <COMPANY>__<field>`);
  if (settings.company_prefixes.length > 0 && !settings.company_prefixes.includes(company)) {
    throw new RecordProblem(key, 'unknown_company', `"${company}" is not among the settings' company_prefixes`);
  }
  return true;
}
