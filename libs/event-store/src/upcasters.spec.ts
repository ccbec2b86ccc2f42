import type { RecordedEvent } from './event-store.port';
import { UpcasterRegistry } from './upcasters';

const event = (type: string, schema: number, data: unknown): RecordedEvent => ({
  id: '00000000-0000-4000-8000-000000000000',
  stream: 's-1',
  revision: 0,
  position: 1,
  type,
  data,
  metadata: { schema, timestamp: '2026-01-01T00:00:00Z' },
  createdAt: '2026-01-01T00:00:00Z',
});

describe('upcasters', () => {
  const registry = new UpcasterRegistry().register(
    { type: 'CustomerImported', fromVersion: 1, toVersion: 2, upcast: (d) => ({ ...(d as object), email: null }) },
    { type: 'CustomerImported', fromVersion: 2, toVersion: 3, upcast: (d) => ({ ...(d as object), tags: [] }) },
  );

  it('given a v1 event, when read, then it is upcast through every version to the current shape', () => {
    const out = registry.apply(event('CustomerImported', 1, { name: 'Ada' }));
    expect(out.data).toEqual({ name: 'Ada', email: null, tags: [] });
    expect(out.metadata.schema).toBe(3);
  });

  it('given a current event or another type, when read, then it is unchanged', () => {
    const current = event('CustomerImported', 3, { name: 'Ada' });
    expect(registry.apply(current)).toBe(current);
    const other = event('ProductImported', 1, { sku: 'x' });
    expect(registry.apply(other)).toBe(other);
  });

  it('refuses upcasters that do not raise the version or collide', () => {
    expect(() => new UpcasterRegistry().register({ type: 'A', fromVersion: 2, toVersion: 2, upcast: (d) => d })).toThrow(/must raise the version/);
    const r = new UpcasterRegistry().register({ type: 'A', fromVersion: 1, toVersion: 2, upcast: (d) => d });
    expect(() => r.register({ type: 'A', fromVersion: 1, toVersion: 3, upcast: (d) => d })).toThrow(/two upcasters/);
  });
});
