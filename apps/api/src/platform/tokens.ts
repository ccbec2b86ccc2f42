/** Injection token of the process's Prometheus metrics. */
export const METRICS = Symbol('METRICS');

/** Injection token of the API's logger (the service's pino logger, component `api`). */
export const API_LOGGER = Symbol('API_LOGGER');
