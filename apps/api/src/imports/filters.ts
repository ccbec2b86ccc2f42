import { coerceBoolean, coerceDate, coerceDateTime, CoercionError, normalizePhone, type FieldTable } from '#mds/imports';
import { invalidRequest } from '#mds/platform';
import { unknownParameters } from '../platform/query-parameters.guard';

/** What a filter value is read with: the settings an import reads its records with. */
export interface FilterContext {
  timezone: string;
  default_country: string | null;
}

type Normalise = (value: string, context: FilterContext) => string;

/**
 * The query a data list takes: its paging and range parameters, and equality filters on the fields of
 * its record table (and `<COMPANY>__<field>` company fields), each value normalised as the import
 * normalises that field, so `?type=basket_add` finds the BASKET_ADD events the import stored.
 */
export interface ListQuery {
  /** Parameters that are not filters: limit, after, access-token, from, to … */
  parameters: readonly string[];
  /** The fields a list may be filtered on, with how each value is read. */
  filters: ReadonlyMap<string, Normalise>;
}

const trim: Normalise = (v) => v.trim();

/** How a filter on a field of this kind reads its value (undefined: the kind cannot be filtered on). */
function normaliserOf(kind: FieldTable[string]['kind']): Normalise | undefined {
  switch (kind) {
    case 'id':
    case 'key':
      return trim;
    case 'text':
    case 'string':
    case 'joined':
    case 'list':
      return (v) => v;
    case 'email':
      return (v) => v.trim().toLowerCase();
    case 'phone':
      return (v, c) => normalizePhone(v, c.default_country) ?? v.trim();
    case 'country':
      return (v) => v.trim().toUpperCase();
    case 'boolean':
      return (v) => String(coerceBoolean(v) ?? false);
    case 'money':
    case 'integer':
      return (v) => {
        if (!/^-?\d+$/.test(v.trim())) throw new CoercionError('invalid_integer', `expected a whole number${kind === 'money' ? ' of cents (send 500 for 5.00)' : ''}, got "${v.slice(0, 50)}"`);
        return String(Number(v.trim()));
      };
    case 'number':
    case 'quantity':
      return (v) => {
        const n = Number(v.trim());
        if (v.trim() === '' || !Number.isFinite(n)) throw new CoercionError('invalid_number', `expected a number, got "${v.slice(0, 50)}"`);
        return String(n);
      };
    case 'date':
      return (v) => coerceDate(v) ?? '';
    case 'datetime':
      return (v, c) => coerceDateTime(v, c.timezone) ?? '';
    default:
      return undefined;
  }
}

/**
 * A data list's query from a record table: its fields of filterable kinds, less `omit`, with `extra`
 * filters and normalisers that replace a kind's (e.g. an event's `type`, upper-cased).
 */
export function listQuery(table: FieldTable, options: { parameters: readonly string[]; omit?: readonly string[]; extra?: Record<string, Normalise> }): ListQuery {
  const filters = new Map<string, Normalise>();
  for (const [name, spec] of Object.entries(table)) {
    if (options.omit?.includes(name) || name.includes('.')) continue;
    const normalise = normaliserOf(spec.kind);
    if (normalise) filters.set(name, normalise);
  }
  for (const [name, normalise] of Object.entries(options.extra ?? {})) filters.set(name, normalise);
  return { parameters: ['limit', 'after', 'access-token', ...options.parameters], filters };
}

const COMPANY_FIELD = /^[A-Za-z][A-Za-z0-9]*__[A-Za-z0-9_.-]{1,200}$/;

/**
 * The filters of a data list request, normalised. An unknown parameter is a 400 naming it and listing
 * the accepted ones; a value its field cannot hold (`?price=5.00`) is a 400 naming the field.
 */
export function listFilters(query: Record<string, unknown>, list: ListQuery, context: FilterContext): Record<string, string> {
  const unknown = Object.keys(query).filter((key) => !list.parameters.includes(key) && !list.filters.has(key) && !COMPANY_FIELD.test(key));
  if (unknown.length > 0) throw unknownParameters(unknown, [...list.parameters, ...list.filters.keys(), '<COMPANY>__<field>']);
  const filters: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) {
    if (list.parameters.includes(key)) continue;
    if (typeof value !== 'string') throw invalidRequest(`filter ${key} must be given once`);
    const normalise = list.filters.get(key);
    try {
      filters[key] = normalise ? normalise(value, context) : value;
    } catch (err) {
      if (err instanceof CoercionError) throw invalidRequest(`filter ${key}: ${err.message}`);
      throw err;
    }
  }
  return filters;
}

/** `?include_deleted=true` of the lists whose rows can end (products, shops): absent is false; anything but a boolean is a 400. */
export function includeDeleted(query: Record<string, unknown>): boolean {
  const value = query.include_deleted;
  if (Array.isArray(value)) throw invalidRequest('include_deleted must be given once');
  try {
    return coerceBoolean(value) === true;
  } catch {
    throw invalidRequest('include_deleted must be true or false');
  }
}
