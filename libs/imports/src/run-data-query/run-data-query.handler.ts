import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { runDataQuery, validateDataQuery, type DataQueryAnswer } from '../data-query';
import type { DataQuery } from '../import-run';
import { RunDataQueryCommand } from './run-data-query.command';

/** How many records a query matches now (its `matched`): a read-model port. */
export const DATA_QUERY_MATCHES = Symbol('DATA_QUERY_MATCHES');
export type DataQueryMatches = (query: DataQuery) => Promise<number>;

/**
 * What a datatype's context does to a value a bulk update sets (sales: a state's aliases), keyed by
 * datatype; the contexts own these rules, the composition root hands them in.
 */
export const DATA_QUERY_UPDATE_RULES = Symbol('DATA_QUERY_UPDATE_RULES');
export type DataQueryUpdateRules = Partial<Record<DataQuery['datatype'], (key: string, value: unknown) => unknown>>;

@CommandHandler(RunDataQueryCommand)
export class RunDataQueryHandler implements ICommandHandler<RunDataQueryCommand, DataQueryAnswer> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATA_QUERY_MATCHES) private readonly countMatches: DataQueryMatches,
    @Inject(DATA_QUERY_UPDATE_RULES) private readonly rules: DataQueryUpdateRules,
  ) {}

  async execute(cmd: RunDataQueryCommand): Promise<DataQueryAnswer> {
    const query = validateDataQuery(cmd.body, (datatype, key, value) => this.rules[datatype as DataQuery['datatype']]?.(key, value) ?? value);
    const { answer } = await runDataQuery(this.store, { query, countMatches: this.countMatches, idempotencyKey: cmd.idempotencyKey, caller: cmd.caller, tokenId: cmd.tokenId, requestId: cmd.requestId });
    return answer;
  }
}
