import type { ImportRequest } from '#mds/imports';

/** What a customer to forget is named by. */
export type ForgetBy = 'external_id' | 'email' | 'phone_number';

/**
 * `mds customers forget <external_id|email|phone>`: forget the customer the identifier finds. It is
 * an import run of one record, `{<identifier>: value, is_forgotten: true}`, so it forgets exactly as
 * `is_forgotten: true` on an import does, and its chunk is the erasure's record in the log: who asked
 * (actor, token), when, and whom (the identifier, which the erasure turns into the same marker as the
 * customer's own records; README "Forgetting").
 */
export class ForgetCustomerCommand {
  readonly request: ImportRequest;

  constructor(
    readonly by: ForgetBy,
    readonly value: string,
    caller: string,
  ) {
    this.request = { records: [forgetRecord(by, value)], atomic: true, caller };
  }
}

/** The record that forgets the customer `value` finds. */
export function forgetRecord(by: ForgetBy, value: string): Record<string, unknown> {
  return { [by]: value, is_forgotten: true };
}

/**
 * What a bare identifier given on the command line names: an e-mail has an @; otherwise an external id
 * that a customer has, else a phone when it looks like one (digits with + ( ) - . and spaces, at least
 * five digits), else an external id (that nobody has: nothing to forget).
 */
export function identifierKind(value: string, isExternalId: boolean): ForgetBy {
  if (value.includes('@')) return 'email';
  if (isExternalId) return 'external_id';
  if (/^\+?[\d\s().-]+$/.test(value.trim()) && value.replace(/\D/g, '').length >= 5) return 'phone_number';
  return 'external_id';
}
