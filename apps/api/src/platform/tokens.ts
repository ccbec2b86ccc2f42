/** Injection token of the process's Prometheus metrics (RUNTIME comes from #mds/runtime). */
export const METRICS = Symbol('METRICS');
