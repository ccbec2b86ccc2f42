import { Inject, Optional } from '@nestjs/common';
import { CommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import type { ImportKind } from '#mds/imports';
import { SECRET_BOX, type SecretBox } from '#mds/platform';
import { ImportUnderSettings, type Settings } from '#mds/settings';
import { customerImport, type CustomerRecord } from '../customer-import';
import { ERASED_IDENTIFIERS, erasedIdentifierWarnings, type ErasedIdentifiers } from '../erased-identifiers';
import { ImportCustomersCommand } from './import-customers.command';

/**
 * Customers are validated under the current settings (phones' country, dates' zone, company
 * prefixes); a record naming an identifier of a forgotten customer is accepted with a warning.
 */
@CommandHandler(ImportCustomersCommand)
export class ImportCustomersHandler extends ImportUnderSettings<ImportCustomersCommand> {
  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Optional() @Inject(ERASED_IDENTIFIERS) private readonly erased?: ErasedIdentifiers,
    @Optional() @Inject(SECRET_BOX) private readonly secrets?: SecretBox,
  ) {
    super(store);
  }

  protected kind(settings: Settings): ImportKind<CustomerRecord> {
    const kind = customerImport(settings);
    const { erased, secrets } = this;
    if (!erased || !secrets) return kind;
    return {
      ...kind,
      finish: async (accepted) => ({
        records: accepted.map((a) => a.record),
        errors: [],
        warnings: await erasedIdentifierWarnings(accepted, erased, (v) => secrets.keyedHash(v)),
      }),
    };
  }
}
