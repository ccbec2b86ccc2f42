import { InvalidArgumentError } from 'commander';
import { ForgetCustomerCommand, identifierKind, RecordCustomerExportCommand, type ForgetBy } from '#mds/customers';
import { normalizePhone, type ImportAnswer } from '#mds/imports';
import { fixTimestampsInJson } from '#mds/platform';
import { customerExportDocument, customerExportLines, ProjectionTimeoutError } from '#mds/projections';
import { withCommands } from './cli-context';

const BY: Record<string, ForgetBy> = { external_id: 'external_id', email: 'email', phone: 'phone_number', phone_number: 'phone_number' };

export function forgetCustomer(identifier: string, opts: { by?: string; timeout: number }): Promise<void> {
  if (opts.by !== undefined && !BY[opts.by]) throw new InvalidArgumentError(`--by must be external_id, email or phone, not "${opts.by}"`);
  return withCommands(async ({ commands, customers, settings, progress }) => {
    const timeoutMs = opts.timeout * 1000;
    const caughtUp = async (position: number) => {
      try {
        await progress.reached('customers', position, timeoutMs);
      } catch (err) {
        if (err instanceof ProjectionTimeoutError) throw new Error(`the customers projection did not reach position ${position} within ${opts.timeout} s: is the service (or \`mds projector\`) running?`);
        throw err;
      }
    };
    // What the read model says now: everything appended so far applied.
    await caughtUp(await progress.head());
    const value = identifier.trim();
    const by = opts.by ? BY[opts.by] : identifierKind(value, (await customers.findLive('external_id', value)) !== undefined);
    const { default_country: country } = await settings.current();
    const lookup = by === 'phone_number' ? (normalizePhone(value, country) ?? value) : value;
    const customerId = await customers.findLive(by === 'phone_number' ? 'phone' : by, lookup);
    const named = by === 'phone_number' ? 'phone' : by === 'email' ? 'e-mail' : 'external id';
    if (customerId === undefined) {
      process.stdout.write(`no customer has that ${named} now: nothing to forget (it was never imported, or is forgotten already)\n`);
      return;
    }
    const answer: ImportAnswer = await commands.execute(new ForgetCustomerCommand(by, value, 'cli'));
    if (answer.rejected > 0) throw new Error(`the forgetting record was refused: ${answer.errors.map((e) => e.message).join('; ')}`);
    // The run's chunk is appended before the answer: the head is at or past it.
    await caughtUp(await progress.head());
    process.stdout.write(`forgot customer ${customerId} (run ${answer.run_id}): their personal data is redaction markers now, in the personal-data store and every read model\n`);
  });
}

/**
 * One customer's data on standard output, as the API's export gives it: the access recorded (actor
 * `cli`) after a JSON document is built and before it is written, or before the first NDJSON line.
 */
export function exportCustomer(externalId: string, opts: { ndjson?: boolean }): Promise<void> {
  return withCommands(async ({ commands, customers }) => {
    const opened = await customers.openExport(externalId);
    if (!opened) throw new Error(`no customer has the external id ${JSON.stringify(externalId)} now (never imported, or forgotten)`);
    const record = (format: 'json' | 'ndjson') => commands.execute(new RecordCustomerExportCommand(opened.customerId, format, 'cli'));
    if (!opts.ndjson) {
      const document = await customerExportDocument(opened);
      await record('json');
      await write(`${fixTimestampsInJson(JSON.stringify(document, null, 2))}\n`);
      return;
    }
    await record('ndjson');
    for await (const lines of customerExportLines(opened)) await write(lines);
  });
}

const write = (text: string) => new Promise<void>((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())));
