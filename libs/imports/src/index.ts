export * from './coerce';
export * from './limits';
export * from './fields';
export * from './import-run';
export * from './dates';
export * from './phone';
export * from './company-fields';
export * from './id-sequence';
export * from './data-query';
export { RunDataQueryCommand } from './run-data-query/run-data-query.command';
export {
  DATA_QUERY_MATCHES,
  DATA_QUERY_UPDATE_RULES,
  RunDataQueryHandler,
  type DataQueryMatches,
  type DataQueryUpdateRules,
} from './run-data-query/run-data-query.handler';
export { ImportsModule } from './imports.module';
