/** JSON with object keys sorted at every depth and no spaces: one text for one value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${value[i] === undefined ? 'null' : canonicalJson(value[i])}`;
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  // Keys usually come sorted already (jsonb's order is by length, then bytes: often the same): sort only when not.
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) {
      keys.sort();
      break;
    }
  }
  let out = '{';
  for (const key of keys) {
    const v = object[key];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}
