/** A WAL position as PostgreSQL prints it (`16/B374D848`), as a number of bytes. */
export function parseLsn(text: string): bigint {
  const m = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text.trim());
  if (!m) throw new Error(`not a WAL position: "${text}"`);
  return (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`);
}

export interface ReplicaLag {
  /** How long ago the primary had written WAL the replica has not replayed yet (0: it has everything). */
  ms: number;
  /** WAL bytes between the primary's last sampled position and the replica's replay position. */
  bytes: number;
}

/**
 * The primary's WAL position as sampled at each check, so that a replica's replay position becomes a
 * delay without comparing two servers' clocks: a replica that has not replayed what the primary had
 * written at time t lags by at least now − t. Idle primaries write no WAL, so an idle replica that
 * has everything lags by 0, not by the time since the last commit (what `now() -
 * pg_last_xact_replay_timestamp()` would say). Precise to one check interval.
 */
export class WalTimeline {
  private samples: Array<{ at: number; lsn: bigint }> = [];

  /** `keepMs`: how far back samples are kept; a replica behind all of them lags by at least that. */
  constructor(private readonly keepMs: number) {}

  record(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    const from = this.samples.findIndex((s) => s.at >= at - this.keepMs);
    // The newest sample always stays (from ≤ the last index, since it was just added).
    if (from > 0) this.samples.splice(0, from);
  }

  lagOf(replayed: bigint, now: number): ReplicaLag {
    const latest = this.samples.at(-1);
    if (!latest || replayed >= latest.lsn) return { ms: 0, bytes: 0 };
    const firstAhead = this.samples.find((s) => s.lsn > replayed)!;
    return { ms: Math.max(0, now - firstAhead.at), bytes: Number(latest.lsn - replayed) };
  }
}
