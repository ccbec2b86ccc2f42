import type { RecordError } from '#mds/imports';
import { PHONE_KEY, type CustomerRecord } from './customer-import';

/** Injection token of the port that tells which keyed hashes are of erased identifiers. */
export const ERASED_IDENTIFIERS = Symbol('ERASED_IDENTIFIERS');

/** What forgetting kept of the identifiers it erased (mds_erased_identifiers), answered by the read side. */
export interface ErasedIdentifiers {
  /** Whether anything was ever erased (most services: no, and imports then hash nothing). */
  any(): Promise<boolean>;
  /** Which of these keyed hashes are of erased identifiers. */
  among(keyedHashes: string[]): Promise<Set<string>>;
}

/** The text whose keyed hash is kept: the kind and the value as the merge matches it. */
export const erasedIdentifierText = (kind: string, value: string) => `${kind}\n${value}`;

/**
 * The run's warnings for records naming an identifier of a forgotten customer: such a record starts a
 * new customer with no link to the forgotten one (README "Forgetting"). A forgetting itself is not
 * warned of. Identifiers as the merge matches them: the e-mail lower-cased, the normalised phone.
 */
export async function erasedIdentifierWarnings(
  records: Array<{ index: number; record: CustomerRecord }>,
  erased: ErasedIdentifiers,
  keyedHash: (value: string) => string,
): Promise<RecordError[]> {
  if (!(await erased.any())) return [];
  const named: Array<{ index: number; field: string; hash: string }> = [];
  const add = (index: number, field: string, kind: string, value: unknown) => {
    if (typeof value === 'string' && value !== '') named.push({ index, field, hash: keyedHash(erasedIdentifierText(kind, value)) });
  };
  for (const { index, record } of records) {
    if (record.is_forgotten === true) continue;
    add(index, 'external_id', 'external_id', record.external_id);
    add(index, 'email', 'email', typeof record.email === 'string' ? record.email.toLowerCase() : undefined);
    add(index, 'phone_number', 'phone', record[PHONE_KEY]);
  }
  if (named.length === 0) return [];
  const hits = await erased.among(named.map((n) => n.hash));
  if (hits.size === 0) return [];
  return named
    .filter((n) => hits.has(n.hash))
    .map((n) => ({
      index: n.index,
      field: n.field,
      code: 'forgotten_identifier',
      message: `${n.field} belonged to a forgotten customer: this record starts a new customer, with no link to the forgotten one`,
    }));
}
