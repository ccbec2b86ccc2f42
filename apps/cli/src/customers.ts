import type { Command } from 'commander';
import { seconds } from './args';

/**
 * `mds customers export <external_id>`: one customer's data, as the API's export gives it.
 * `mds customers forget <external_id|email|phone>`: forgets the customer the identifier finds (an
 * import run of one `is_forgotten: true` record, recorded with the caller) and waits until the
 * erasure is done: the customers projection forgets them and redacts their personal data in the same
 * transaction. Running it again after an interruption finishes the job (or finds nothing left to forget).
 */
export function customersCommands(program: Command): void {
  const customers = program.command('customers').description('customers');
  customers
    .command('forget <identifier>')
    .description('forget a customer for good: their personal data, in every read model and the personal-data store, becomes redaction markers')
    .option('--by <kind>', 'what the identifier is: external_id, email or phone (default: guessed: an @ is an e-mail; an external id a customer has; else a phone when it looks like one)')
    .option('--timeout <seconds>', 'how long to wait for the projector to apply it', seconds, 120)
    .action(async (identifier: string, opts: { by?: string; timeout: number }) => (await import('./customers.actions')).forgetCustomer(identifier, opts));
  customers
    .command('export <external_id>')
    .description("everything the service holds of one customer, as JSON on standard output (recorded in the log as an access by `cli`): as GET /api/data/customers/{external_id}/export/ answers")
    .option('--ndjson', 'one JSON object a line, read and written a page at a time: for a customer with more than 10,000 records')
    .action(async (externalId: string, opts: { ndjson?: boolean }) => (await import('./customers.actions')).exportCustomer(externalId, opts));
}
