// Event-log append through the EventStoreDB adapter, against the wire-level DOUBLE of EventStoreDB's
// gRPC API (test/support/esdb-double.ts): a test fixture holding the log in memory, NOT a server. What
// this measures is the client side of an append (the adapter, @eventstore/db-client, gRPC on loopback),
// beside a baseline measured in the same run: the same appends as plain gRPC Append calls, no client
// library. A server's own cost (its disk, its indexes) is in neither figure. Median of 3 repetitions.
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { esdbEventStore } from '#mds/event-store';
import { rawAppender, startEsdbDouble } from '../test/support/esdb-double';
import { median } from './bench-database';

const REPS = Number(process.env.BENCH_REPS ?? 3);
const SCALE = Number(process.env.BENCH_APPEND_SCALE ?? 1);
const ONE = Math.round(10_000 * SCALE);
const BATCHED = Math.round((50_000 * SCALE) / 100) * 100;
const payload = () => ({ email: `${randomUUID()}@example.com`, first_name: 'Ada', last_name: 'Lovelace', can_email: true, tags: ['vip', 'newsletter'] });

async function rate(events: number, writers: number, calls: number, fn: (i: number) => Promise<unknown>): Promise<{ perSecond: number; cpuMsPerCall: number }> {
  let next = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: writers }, async () => {
    while (next < calls) await fn(next++);
  }));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  return { perSecond: events / seconds, cpuMsPerCall: (used.user + used.system) / 1000 / calls };
}

async function main() {
  const scenarios = [
    { name: 'one event per append, 16 concurrent writers, a new stream each', events: ONE, writers: 16, perAppend: 1 },
    { name: '100 events per append, 4 concurrent writers', events: BATCHED, writers: 4, perAppend: 100 },
  ];
  console.log(
    `### Event-log append, EventStoreDB adapter against the wire-level double (NOT a server)\n\n${os.cpus().length} cores, Node ${process.version}, median of ${REPS}. The double (test/support/esdb-double.ts) holds the log in memory in this process: the figures are the client side of an append (the adapter, the client library, gRPC on loopback) and the double's own handling, beside the same appends sent as plain gRPC Append calls (no client library). A real server adds its disk and indexes, which no figure here includes.\n`,
  );
  console.log('| scenario | adapter (events/s) | CPU per append (ms) | plain gRPC Append (events/s) | CPU per append (ms) | ratio to plain |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const s of scenarios) {
    const ours: Array<{ perSecond: number; cpuMsPerCall: number }> = [];
    const base: Array<{ perSecond: number; cpuMsPerCall: number }> = [];
    for (let rep = 0; rep < REPS; rep++) {
      const double = await startEsdbDouble({ systemEventEvery: 1000 });
      const raw = rawAppender(double.url);
      const store = new (esdbEventStore())(double.url);
      try {
        const calls = s.events / s.perAppend;
        const events = () => Array.from({ length: s.perAppend }, () => ({ id: randomUUID(), type: 'CustomerImported', data: payload() }));
        base.push(await rate(s.events, s.writers, calls, (i) => raw.append(`raw${rep}-${i}`, events())));
        ours.push(await rate(s.events, s.writers, calls, (i) => store.append(`ours${rep}-${i}`, events(), s.perAppend === 1 ? { expectedRevision: 'no_stream' } : {})));
      } finally {
        raw.close();
        await store.close();
        await double.close();
      }
    }
    const o = median(ours.map((x) => x.perSecond));
    const b = median(base.map((x) => x.perSecond));
    const f = (x: number) => Math.round(x).toLocaleString('en');
    console.log(`| ${s.name} (${s.events.toLocaleString('en')} events) | ${f(o)} | ${median(ours.map((x) => x.cpuMsPerCall)).toFixed(3)} | ${f(b)} | ${median(base.map((x) => x.cpuMsPerCall)).toFixed(3)} | ${(o / b).toFixed(2)} |`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
