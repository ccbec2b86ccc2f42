// Jest-only helpers (uses the test `expect`): not in the build (tsconfig.build.json).
/** What retrieval adds to a record's fields: the service's `id` and `updated_at` (for records compared whole). */
export function stamped<T extends object>(record: T, id: unknown = expect.anything()): T & { id: unknown; updated_at: unknown } {
  return { ...record, id, updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/) };
}

/** A retrieved record without what retrieval adds (`updated_at`, and `id` unless kept), for tests about its other fields. */
export function unstamped<T>(record: T, options: { keepId?: boolean } = {}): T {
  if (!record || typeof record !== 'object') return record;
  const { id, updated_at: _updatedAt, ...rest } = record as Record<string, unknown>;
  return (options.keepId && id !== undefined ? { id, ...rest } : rest) as T;
}
