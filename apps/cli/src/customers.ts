import { InvalidArgumentError, type Command } from 'commander';
import { ForgetCustomerCommand, ForgetCustomerHandler, identifierKind, type ForgetBy } from '#mds/customers';
import { normalizePhone } from '#mds/imports';
import { findLiveCustomer, ProjectionTimeoutError, waitForProjection } from '#mds/projections';
import { loadSettings } from '#mds/settings';
import { withRuntime } from './cli-runtime';

const BY: Record<string, ForgetBy> = { external_id: 'external_id', email: 'email', phone: 'phone_number', phone_number: 'phone_number' };

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
    .option('--timeout <seconds>', 'how long to wait for the projector to apply it', (v: string) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number of seconds > 0');
      return n;
    }, 120)
    .action((identifier: string, opts: { by?: string; timeout: number }) =>
      withRuntime(async (runtime) => {
        if (opts.by !== undefined && !BY[opts.by]) throw new InvalidArgumentError(`--by must be external_id, email or phone, not "${opts.by}"`);
        const timeoutMs = opts.timeout * 1000;
        const caughtUp = async (position: number) => {
          try {
            await waitForProjection(runtime.pool, 'customers', position, { timeoutMs, notifications: runtime.notifications });
          } catch (err) {
            if (err instanceof ProjectionTimeoutError) throw new Error(`the customers projection did not reach position ${position} within ${opts.timeout} s: is the service (or \`mds projector\`) running?`);
            throw err;
          }
        };
        // What the read model says now: everything appended so far applied.
        await caughtUp(await runtime.store.headPosition());
        const value = identifier.trim();
        const by = opts.by ? BY[opts.by] : identifierKind(value, (await findLiveCustomer(runtime.pool, 'external_id', value)) !== undefined);
        const { settings } = await loadSettings(runtime.store);
        const lookup = by === 'phone_number' ? (normalizePhone(value, settings.default_country) ?? value) : value;
        const customerId = await findLiveCustomer(runtime.pool, by === 'phone_number' ? 'phone' : by, lookup);
        const named = by === 'phone_number' ? 'phone' : by === 'email' ? 'e-mail' : 'external id';
        if (customerId === undefined) {
          process.stdout.write(`no customer has that ${named} now: nothing to forget (it was never imported, or is forgotten already)\n`);
          return;
        }
        const answer = await new ForgetCustomerHandler(runtime.store).execute(new ForgetCustomerCommand(by, value, 'cli'));
        if (answer.rejected > 0) throw new Error(`the forgetting record was refused: ${answer.errors.map((e) => e.message).join('; ')}`);
        // The run's chunk is appended before the answer: the head is at or past it.
        await caughtUp(await runtime.store.headPosition());
        process.stdout.write(`forgot customer ${customerId} (run ${answer.run_id}): their personal data is redaction markers now, in the personal-data store and every read model\n`);
      }),
    );
}
