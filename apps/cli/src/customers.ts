import type { Command } from 'commander';
import { seconds } from './args';

/**
 * `mds customers forget <external_id|email|phone>`: forgets the customer the identifier finds (an
 * import run of one `is_forgotten: true` record, recorded with the caller) and waits until the
 * erasure is done: the customers projection forgets them and redacts their personal data in the same
 * transaction. Running it again after an interruption finishes the job (or finds nothing left to forget).
 */
export function customersCommands(program: Command): void {
  program
    .command('customers')
    .description('customers')
    .command('forget <identifier>')
    .description('forget a customer for good: their personal data, in every read model and the personal-data store, becomes redaction markers')
    .option('--by <kind>', 'what the identifier is: external_id, email or phone (default: guessed: an @ is an e-mail; an external id a customer has; else a phone when it looks like one)')
    .option('--timeout <seconds>', 'how long to wait for the projector to apply it', seconds, 120)
    .action(async (identifier: string, opts: { by?: string; timeout: number }) => (await import('./customers.actions')).forgetCustomer(identifier, opts));
}
