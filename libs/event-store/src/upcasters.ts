import type { RecordedEvent } from './event-store.port';

/** Turns an event of (type, schema version) into the next version's shape. Stored events are never rewritten. */
export interface Upcaster {
  type: string;
  fromVersion: number;
  toVersion: number;
  upcast(data: unknown, event: RecordedEvent): unknown;
}

export class UpcasterRegistry {
  private readonly byKey = new Map<string, Upcaster>();

  register(...upcasters: Upcaster[]): this {
    for (const u of upcasters) {
      if (u.toVersion <= u.fromVersion) throw new Error(`upcaster ${u.type} v${u.fromVersion} must raise the version`);
      const key = `${u.type}@${u.fromVersion}`;
      if (this.byKey.has(key)) throw new Error(`two upcasters for ${u.type} v${u.fromVersion}`);
      this.byKey.set(key, u);
    }
    return this;
  }

  /** True when some stored version of `type` is upcast (its stored data is not in the current shape). */
  handles(type: string): boolean {
    for (const u of this.byKey.values()) if (u.type === type) return true;
    return false;
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Applies the chain of upcasters for the event's type, starting at its stored schema version. */
  apply<T extends RecordedEvent>(event: T): T {
    if (this.byKey.size === 0) return event;
    let current = event;
    for (let guard = 0; guard < 1000; guard++) {
      const u = this.byKey.get(`${current.type}@${current.metadata.schema}`);
      if (!u) return current;
      current = { ...current, data: u.upcast(current.data, current), metadata: { ...current.metadata, schema: u.toVersion } };
    }
    throw new Error(`upcaster chain for ${event.type} does not end`);
  }
}
