import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { runImport, type UploadAnswer } from '#mds/imports';
import { shopImport } from '../shops';
import { ImportShopsCommand } from './import-shops.command';

/** Shops need no settings: validated as sent and appended as one run. */
@CommandHandler(ImportShopsCommand)
export class ImportShopsHandler implements ICommandHandler<ImportShopsCommand, UploadAnswer> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ request }: ImportShopsCommand): Promise<UploadAnswer> {
    return (await runImport(this.store, shopImport, request)).answer;
  }
}
