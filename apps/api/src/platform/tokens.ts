/** Injection tokens of what the composition root hands to the API's modules. */
export const RUNTIME = Symbol('RUNTIME');
export const METRICS = Symbol('METRICS');
