/**
 * Answers an API process keeps between requests, by key, until an announced change empties them
 * (`forget`) or `keepFor`'s time passes, whichever comes first: a lost announcement costs the keep
 * time at most. A read begun before a forget does not keep its answer after it. With `maxSize`
 * (`sizeOf` each answer, 1 by default) the oldest go first past it. Nothing is kept until `keepFor`.
 */
export class KeptAnswers<V> {
  private readonly entries = new Map<string, { value: V; until: number; size: number }>();
  private total = 0;
  private keepMs = 0;
  /** Bumped by every forget. */
  private epoch = 0;

  constructor(private readonly limits: { maxSize?: number; sizeOf?: (value: V) => number } = {}) {}

  keepFor(ms: number): void {
    this.keepMs = ms;
  }

  forget(): void {
    this.epoch++;
    this.entries.clear();
    this.total = 0;
  }

  /** The answer kept under `key` if it is still kept and `usable`, else `load`'s (kept unless a forget came meanwhile). */
  async get(key: string, load: () => Promise<V>, usable: (value: V) => boolean = () => true): Promise<V> {
    if (this.keepMs <= 0) return load();
    const now = Date.now();
    const kept = this.entries.get(key);
    if (kept && kept.until > now && usable(kept.value)) return kept.value;
    const epoch = this.epoch;
    const value = await load();
    if (epoch === this.epoch) this.keep(key, value, now + this.keepMs);
    return value;
  }

  private keep(key: string, value: V, until: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.total -= old.size;
      this.entries.delete(key);
    }
    const size = this.limits.sizeOf?.(value) ?? 1;
    this.entries.set(key, { value, until, size });
    this.total += size;
    if (this.limits.maxSize === undefined) return;
    for (const [k, e] of this.entries) {
      if (this.total <= this.limits.maxSize) break;
      this.entries.delete(k);
      this.total -= e.size;
    }
  }
}
