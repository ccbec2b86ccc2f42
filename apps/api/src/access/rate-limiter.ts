/** Fixed one-minute windows per key (access token), per API process. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(readonly perMinute: number) {}

  /** Counts one request; returns what the RateLimit-* headers report. */
  hit(key: string, now = Date.now()): { allowed: boolean; limit: number; remaining: number; resetSeconds: number } {
    const windowStart = now - (now % 60_000);
    let w = this.windows.get(key);
    if (!w || w.start !== windowStart) {
      w = { start: windowStart, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) for (const [k, v] of this.windows) if (v.start < windowStart) this.windows.delete(k);
    }
    w.count++;
    const resetSeconds = Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
    return { allowed: w.count <= this.perMinute, limit: this.perMinute, remaining: Math.max(0, this.perMinute - w.count), resetSeconds };
  }
}
