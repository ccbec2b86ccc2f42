import { invalidRequest } from '#mds/platform';
import type { CustomerDataExported } from '../customers.events';

/**
 * Record that someone took a customer's data out (an export over HTTP or `mds customers export`):
 * whom by the service's numeric customer id, who by their actor id (`users/<id>`, `integrations/<id>`,
 * `cli`); the time is the event's.
 */
export class RecordCustomerExportCommand {
  constructor(
    readonly customerId: number,
    readonly format: CustomerDataExported['format'],
    readonly actor: string,
    readonly tokenId?: string,
    readonly requestId?: string,
  ) {}
}

/**
 * The event of an export. Only the numeric id goes in: the log is kept for good and forgetting never
 * rewrites it, so nothing that names the person (external id, e-mail) may enter it this way.
 */
export function decideCustomerExport(command: RecordCustomerExportCommand): CustomerDataExported {
  if (!Number.isSafeInteger(command.customerId) || command.customerId <= 0) throw invalidRequest('an export is recorded for a customer id (a positive whole number)');
  if (command.format !== 'json' && command.format !== 'ndjson') throw invalidRequest('an export is json or ndjson');
  return { customer_id: command.customerId, format: command.format };
}
