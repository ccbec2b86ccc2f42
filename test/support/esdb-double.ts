/**
 * TEST FIXTURE, NOT A SERVER: a wire-level double of the parts of EventStoreDB's gRPC API that
 * `@eventstore/db-client` calls for our adapter, served with @grpc/grpc-js from the service definitions
 * the client ships (generated/*_grpc_pb.js). It lives in test/support and is never loaded at run time.
 *
 * Semantics follow EventStoreDB's documentation and server source (23.10 / 24.x, KurrentDB 25):
 * - a stream's revisions count from 0; `$all` positions (commit = prepare per event here) increase
 *   with every event but are not dense: they advance by each record's size, as log offsets do;
 * - Append and BatchAppend check the expected revision (any, no_stream, stream_exists, a revision) and
 *   answer WrongExpectedVersion with the stream's actual revision;
 * - idempotence ("Optimistic concurrency and idempotence"): with an expected revision below the
 *   stream's, the stored event ids from there on are compared with the appended ones: all stored →
 *   success without writing, none or some → WrongExpectedVersion; with `any`, all stored → success,
 *   none → written, some → WrongExpectedVersion. An idempotent success carries no log position
 *   (AlreadyCommitted completes with commit position -1, sent as `no_position`), as servers before
 *   21.x answer; with `idempotentPositions` it carries the original one, as 21.x to 25.x do;
 * - `$`-prefixed system events are in `$all` (written now and then, as the server's statistics and
 *   epochs are); filters by event type or stream name (regex or prefixes) leave them out;
 * - subscriptions to `$all` (from the start, the end or after a position) send a confirmation, the
 *   stored events, `caught_up`, then new events as they are written; a filtered one sends checkpoints
 *   every `max search window × checkpoint multiplier` events it looked at;
 * - an append larger than the maximum append size (1 MiB by default, `maxAppendSize` as the server's
 *   MaxAppendSize; counted as the server does: data, metadata, the type as UTF-16) fails with
 *   MaximumAppendSizeExceeded and writes nothing;
 * - reads of a stream that does not exist answer StreamNotFound; with `streamReadPositions: false`
 *   stream reads carry no log position (commit position -1), as some server versions send them;
 * - stream metadata (`setStreamMetadata`, an ACL) is a `$metadata` event in `$$<stream>`, stored as
 *   any append (`streamMetadata` reads the last); ACLs are not enforced (nor is any authentication);
 * - a tombstoned stream (Tombstone) refuses appends and reads afterwards with StreamDeleted; the
 *   tombstone record is not written to `$all`;
 * - `failNext` makes the next calls fail with a gRPC status (UNAVAILABLE, DEADLINE_EXCEEDED, ...)
 *   or with the server's exception header (access-denied, not-leader), before anything is written;
 *   `failAfterWrite` lets the next appends do what they do in the log and then fails the call (with
 *   a status, or dropping every connection as a server restart does, or going down): an outcome the
 *   client cannot know; `stop` and `restart` take the server down and bring it back on the same port
 *   with the same log.
 * Not modelled: clustering and leader election, durability (all in memory), scavenging, soft deletes,
 * ACL enforcement, persistent subscriptions, server-side projections, deadlines, performance.
 */
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';

/* eslint-disable @typescript-eslint/no-require-imports */
const streamsGrpc = require('@eventstore/db-client/generated/streams_grpc_pb');
const streamsPb = require('@eventstore/db-client/generated/streams_pb');
const sharedPb = require('@eventstore/db-client/generated/shared_pb');
const featuresGrpc = require('@eventstore/db-client/generated/serverfeatures_grpc_pb');
const featuresPb = require('@eventstore/db-client/generated/serverfeatures_pb');
const statusPb = require('@eventstore/db-client/generated/status_pb');
/* eslint-enable @typescript-eslint/no-require-imports */

export interface StoredEvent {
  stream: string;
  revision: number;
  id: string;
  type: string;
  contentType: string;
  data: Buffer;
  customMetadata: Buffer;
  /** .NET ticks (100 ns) since the Unix epoch, as the server writes `created`. */
  created: bigint;
  position: number;
}

interface Proposed {
  id: string;
  type: string;
  contentType: string;
  data: Buffer;
  customMetadata: Buffer;
}

export type Expected = { kind: 'any' } | { kind: 'no_stream' } | { kind: 'stream_exists' } | { kind: 'revision'; revision: number };

export type AppendOutcome =
  | { ok: true; revision: number; position: number | undefined }
  | { ok: false; wrong: { current: number; expected: Expected } }
  | { ok: false; tooLarge: number }
  | { ok: false; deleted: true };

export type Failure = { code: grpc.status } | { exception: 'access-denied' | 'not-leader' };
/**
 * How an append fails after it was written: with a gRPC status, or every connection dropped (the
 * server back on the same port at once, or, with `stayDown`, only at `restart`).
 */
export type FailureAfterWrite = { code: grpc.status } | { drop: true; stayDown?: boolean };
/** What a failure may hit: appends (Append and BatchAppend), stream reads, `$all` reads, subscriptions. */
export type CallKind = 'append' | 'readStream' | 'readAll' | 'subscribe';

export interface EsdbDoubleOptions {
  /** The server's MaxAppendSize, in bytes (default 1 MiB, the server's default). */
  maxAppendSize?: number;
  /** A `$stats` system event after every n-th append (default 3). */
  systemEventEvery?: number;
  /** Whether stream reads carry log positions (default true; some server versions send none). */
  streamReadPositions?: boolean;
  /** Idempotent appends answered with the original position, as servers 21.x to 25.x do (default: `no_position`, as before 21.x). */
  idempotentPositions?: boolean;
}

export interface EsdbDouble {
  /** `esdb://127.0.0.1:<port>?tls=false`, for EsdbEventStore and EVENTSTORE_URL. */
  url: string;
  /** Every event as stored, system events included. */
  readonly events: readonly StoredEvent[];
  /** Appends and batch appends answered so far (idempotent and refused ones included). */
  readonly appendCalls: number;
  /** Subscriptions open now. */
  readonly subscriptions: number;
  /** Events sent to clients so far, by reads and subscriptions (what a filter saves shows here). */
  readonly eventsSent: number;
  /** Makes the next `count` calls (of one kind, or any) fail: with a gRPC status code, or with an exception header. */
  failNext(count: number, failure: Failure, call?: CallKind): void;
  /** Makes the next `count` appends (to streams starting with `stream`, or any) fail after the log took them (written, or answered as idempotent). */
  failAfterWrite(count: number, failure: FailureAfterWrite, stream?: string): void;
  /** The stream's metadata as last set (`$metadata` in `$$<stream>`), parsed; undefined when never set. */
  streamMetadata(stream: string): unknown;
  /** Whether the stream was tombstoned. */
  tombstoned(stream: string): boolean;
  /** Writes a `$`-prefixed system event into `$all`, as the server's statistics and epochs do. */
  writeSystemEvent(): void;
  /** Goes down as a stopped server does: open calls end, the port refuses connections; the log is kept. */
  stop(): Promise<void>;
  /** Serves the same log again on the same port, as the server back from a restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

const U64_MAX = '18446744073709551615'; // what the server's -1 ("no position") becomes on the wire
const DEFAULT_SEARCH_WINDOW = 32;
const ticksNow = () => BigInt(Date.now()) * 10_000n;
const bytes = (b: Uint8Array | string) => (typeof b === 'string' ? Buffer.from(b, 'base64') : Buffer.from(b));

/** The pure core of the double: one in-memory log, its streams and the append rules. */
export class DoubleLog {
  readonly events: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private nextPosition = 4096; // a log never starts at 0: the server writes its own records first
  private appendCount = 0;
  private readonly listeners = new Set<(e: StoredEvent) => void>();
  readonly tombstoned = new Set<string>();

  constructor(
    private readonly maxAppendSize: number,
    private readonly systemEventEvery: number,
    private readonly idempotentPositions = false,
  ) {
    this.write('$epochs', { id: randomUUID(), type: '$epoch-information', contentType: 'application/json', data: Buffer.from('{"epochNumber":0}'), customMetadata: Buffer.alloc(0) });
  }

  stream(name: string): StoredEvent[] | undefined {
    return this.streams.get(name);
  }

  onWrite(listener: (e: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  writeSystemEvent(): void {
    this.write('$stats-127.0.0.1:2113', { id: randomUUID(), type: '$statsCollected', contentType: 'application/json', data: Buffer.from('{"proc-cpu":1}'), customMetadata: Buffer.alloc(0) });
  }

  /** Expected revision, idempotence, size, then the write: all or nothing. */
  append(stream: string, expected: Expected, proposed: Proposed[]): AppendOutcome {
    // Counted as the server's Event.SizeOnDisk counts: data, metadata, and the type as UTF-16.
    const size = proposed.reduce((n, p) => n + p.data.length + p.customMetadata.length + p.type.length * 2, 0);
    if (size > this.maxAppendSize) return { ok: false, tooLarge: this.maxAppendSize };
    if (this.tombstoned.has(stream)) return { ok: false, deleted: true };
    const existing = this.streams.get(stream) ?? [];
    const current = existing.length - 1;
    const wrong = { ok: false as const, wrong: { current, expected } };
    const storedFrom = (from: number): 'all' | 'none' | 'some' => {
      const hits = proposed.filter((p, i) => existing[from + i]?.id === p.id).length;
      return hits === proposed.length ? 'all' : hits === 0 && !proposed.some((p) => existing.some((e) => e.id === p.id)) ? 'none' : 'some';
    };
    const idempotent = (from: number): AppendOutcome => {
      const last = from + proposed.length - 1;
      return { ok: true, revision: last, position: this.idempotentPositions ? existing[last].position : undefined };
    };
    if (proposed.length === 0) return { ok: true, revision: current, position: undefined };
    if (expected.kind === 'revision' || expected.kind === 'no_stream') {
      const at = expected.kind === 'revision' ? expected.revision : -1;
      if (at > current) return wrong;
      if (at < current) return storedFrom(at + 1) === 'all' ? idempotent(at + 1) : wrong;
    } else {
      if (expected.kind === 'stream_exists' && current < 0) return wrong;
      const first = existing.findIndex((e) => e.id === proposed[0].id);
      const stored = first >= 0 ? storedFrom(first) : storedFrom(existing.length);
      if (stored === 'all') return idempotent(first);
      if (stored === 'some') return wrong;
    }
    let last: StoredEvent | undefined;
    for (const p of proposed) last = this.write(stream, p);
    if (++this.appendCount % this.systemEventEvery === 0) this.writeSystemEvent();
    return { ok: true, revision: last!.revision, position: last!.position };
  }

  /** Tombstones a stream (a hard delete) at the expected revision; it exists or not. */
  tombstone(stream: string, expected: Expected): { ok: true } | { ok: false; wrong: { current: number; expected: Expected } } | { ok: false; deleted: true } {
    if (this.tombstoned.has(stream)) return { ok: false, deleted: true };
    const current = (this.streams.get(stream)?.length ?? 0) - 1;
    const fits = expected.kind === 'any' || (expected.kind === 'no_stream' ? current < 0 : expected.kind === 'stream_exists' ? current >= 0 : expected.revision === current);
    if (!fits) return { ok: false, wrong: { current, expected } };
    this.tombstoned.add(stream);
    return { ok: true };
  }

  private write(stream: string, e: Proposed): StoredEvent {
    const list = this.streams.get(stream) ?? [];
    const stored: StoredEvent = { ...e, stream, revision: list.length, created: ticksNow(), position: this.nextPosition };
    // Not dense: the next record starts after this one's bytes (plus a header), as in a log file.
    this.nextPosition += 128 + e.data.length + e.customMetadata.length + stream.length;
    list.push(stored);
    this.streams.set(stream, list);
    this.events.push(stored);
    for (const listener of this.listeners) listener(stored);
    return stored;
  }
}

/** A read's or subscription's filter: event type or stream name, by regex or prefixes. */
export function filterOf(f: any): (e: StoredEvent) => boolean {
  const onType = f.hasEventType();
  const expression = onType ? f.getEventType() : f.getStreamIdentifier();
  const field = (e: StoredEvent) => (onType ? e.type : e.stream);
  const prefixes: string[] = expression.getPrefixList();
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : undefined;
  return (e) => (prefixes.length > 0 ? prefixes.some((p) => field(e).startsWith(p)) : regex ? regex.test(field(e)) : true);
}

export async function startEsdbDouble(options: EsdbDoubleOptions = {}): Promise<EsdbDouble> {
  const log = new DoubleLog(options.maxAppendSize ?? 1024 * 1024, options.systemEventEvery ?? 3, options.idempotentPositions ?? false);
  const streamReadPositions = options.streamReadPositions ?? true;
  const failures: Array<{ failure: Failure; call?: CallKind }> = [];
  const afterWrite: Array<{ failure: FailureAfterWrite; stream?: string }> = [];
  let appendCalls = 0;
  let eventsSent = 0;
  let port = 0;
  const open = new Set<() => void>();

  const failure = (kind: CallKind): grpc.ServiceError | undefined => {
    const at = failures.findIndex((x) => x.call === undefined || x.call === kind);
    if (at < 0) return undefined;
    const f = failures.splice(at, 1)[0].failure;
    if ('code' in f) return statusError(f.code);
    const metadata = new grpc.Metadata();
    metadata.set('exception', f.exception);
    // The server names the leader to reconnect to (here: itself, a cluster of one).
    if (f.exception === 'not-leader') {
      metadata.set('leader-endpoint-host', '127.0.0.1');
      metadata.set('leader-endpoint-port', String(port));
    }
    const code = f.exception === 'access-denied' ? grpc.status.PERMISSION_DENIED : grpc.status.NOT_FOUND;
    return Object.assign(new Error(`double: ${f.exception}`), { code, details: f.exception, metadata });
  };

  const statusError = (code: grpc.status) => Object.assign(new Error(`double: ${grpc.status[code]}`), { code, details: grpc.status[code], metadata: new grpc.Metadata() });
  /**
   * The failure an append meets once the log took it, if one is cued: a status to answer, or `drop`
   * (every connection goes, as when the server restarts; the call gets no answer).
   */
  const failedAfterWrite = (stream: string): grpc.ServiceError | 'drop' | undefined => {
    const at = afterWrite.findIndex((x) => x.stream === undefined || stream.startsWith(x.stream));
    if (at < 0) return undefined;
    const f = afterWrite.splice(at, 1)[0].failure;
    if ('drop' in f) {
      void (async () => {
        await stop();
        if (!f.stayDown) await restart();
      })();
      return 'drop';
    }
    return statusError(f.code);
  };
  const streamDeleted = (stream: string) => {
    const metadata = new grpc.Metadata();
    metadata.set('exception', 'stream-deleted');
    metadata.set('stream-name', stream);
    return Object.assign(new Error(`double: stream ${stream} is deleted`), { code: grpc.status.FAILED_PRECONDITION, details: 'Stream deleted', metadata });
  };

  const proposedOf = (m: any): Proposed => ({
    id: m.getId().getString(),
    type: m.getMetadataMap().get('type') ?? '',
    contentType: m.getMetadataMap().get('content-type') ?? 'application/octet-stream',
    data: bytes(m.getData()),
    customMetadata: bytes(m.getCustomMetadata()),
  });
  const streamName = (identifier: any) => Buffer.from(identifier.getStreamName() as Uint8Array).toString('utf8');

  const streamsService = {
    read(call: grpc.ServerWritableStream<any, any>) {
      const options = call.request.getOptions();
      const err = failure(options.hasSubscription() ? 'subscribe' : options.hasStream() ? 'readStream' : 'readAll');
      if (err) return call.emit('error', err);
      if (options.hasSubscription()) return subscribe(call, options);
      const backwards = options.getReadDirection() === streamsPb.ReadReq.Options.ReadDirection.BACKWARDS;
      const count = options.hasCount() ? Number(options.getCount()) : Number.MAX_SAFE_INTEGER;
      let source: StoredEvent[];
      let positions = true;
      if (options.hasStream()) {
        const s = options.getStream();
        const name = streamName(s.getStreamIdentifier());
        if (log.tombstoned.has(name)) return call.emit('error', streamDeleted(name));
        const list = log.stream(name);
        if (!list) {
          const resp = new streamsPb.ReadResp();
          const nf = new streamsPb.ReadResp.StreamNotFound();
          nf.setStreamIdentifier(s.getStreamIdentifier());
          resp.setStreamNotFound(nf);
          call.write(resp);
          return call.end();
        }
        const start = s.hasRevision() ? Number(s.getRevision()) : s.hasEnd() ? list.length - 1 : backwards ? list.length - 1 : 0;
        source = backwards ? list.slice(0, start + 1).reverse() : list.slice(start);
        positions = streamReadPositions;
      } else {
        const a = options.getAll();
        const at = a.hasPosition() ? Number(a.getPosition().getCommitPosition()) : a.hasEnd() ? Number.MAX_SAFE_INTEGER : -1;
        // A read forwards from a position includes the event at it; backwards gives the events before it.
        source = backwards ? log.events.filter((e) => e.position < at).reverse() : log.events.filter((e) => e.position >= at);
        if (options.hasFilter()) source = source.filter(filterOf(options.getFilter()));
      }
      for (const e of source.slice(0, count)) call.write(eventResp(e, positions));
      call.end();
    },
    append(call: grpc.ServerReadableStream<any, any>, callback: grpc.sendUnaryData<any>) {
      const err = failure('append');
      let stream = '';
      let expected: Expected = { kind: 'any' };
      const proposed: Proposed[] = [];
      call.on('data', (req: any) => {
        if (req.hasOptions()) {
          const o = req.getOptions();
          stream = streamName(o.getStreamIdentifier());
          expected = o.hasRevision() ? { kind: 'revision', revision: Number(o.getRevision()) } : o.hasNoStream() ? { kind: 'no_stream' } : o.hasStreamExists() ? { kind: 'stream_exists' } : { kind: 'any' };
        } else proposed.push(proposedOf(req.getProposedMessage()));
      });
      call.on('end', () => {
        appendCalls++;
        if (err) return callback(err);
        const outcome = log.append(stream, expected, proposed);
        const lost = failedAfterWrite(stream);
        if (lost === 'drop') return;
        if (lost) return callback(lost);
        if ('deleted' in outcome) return callback(streamDeleted(stream));
        const resp = new streamsPb.AppendResp();
        if (outcome.ok) {
          const success = new streamsPb.AppendResp.Success();
          if (outcome.revision >= 0) success.setCurrentRevision(String(outcome.revision));
          else success.setNoStream(new sharedPb.Empty());
          if (outcome.position === undefined) success.setNoPosition(new sharedPb.Empty());
          else {
            const position = new streamsPb.AppendResp.Position();
            position.setCommitPosition(String(outcome.position));
            position.setPreparePosition(String(outcome.position));
            success.setPosition(position);
          }
          resp.setSuccess(success);
          return callback(null, resp);
        }
        if ('tooLarge' in outcome) {
          const metadata = new grpc.Metadata();
          metadata.set('exception', 'maximum-append-size-exceeded');
          metadata.set('maximum-append-size', String(outcome.tooLarge));
          return callback(Object.assign(new Error('Maximum Append Size Exceeded'), { code: grpc.status.INVALID_ARGUMENT, details: 'Maximum Append Size Exceeded', metadata }));
        }
        const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
        if (outcome.wrong.current >= 0) wrong.setCurrentRevision(String(outcome.wrong.current));
        else wrong.setCurrentNoStream(new sharedPb.Empty());
        const e = outcome.wrong.expected;
        if (e.kind === 'revision') wrong.setExpectedRevision(String(e.revision));
        else if (e.kind === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
        else if (e.kind === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
        else wrong.setExpectedAny(new sharedPb.Empty());
        resp.setWrongExpectedVersion(wrong);
        callback(null, resp);
      });
    },
    batchAppend(call: grpc.ServerDuplexStream<any, any>) {
      const pending = new Map<string, { stream: string; identifier: unknown; expected: Expected; proposed: Proposed[] }>();
      call.on('data', (req: any) => {
        const correlation = req.getCorrelationId().getString();
        let batch = pending.get(correlation);
        if (!batch) {
          const o = req.getOptions();
          const expected: Expected = o.hasStreamPosition()
            ? { kind: 'revision', revision: Number(o.getStreamPosition()) }
            : o.hasNoStream() ? { kind: 'no_stream' } : o.hasStreamExists() ? { kind: 'stream_exists' } : { kind: 'any' };
          batch = { stream: streamName(o.getStreamIdentifier()), identifier: o.getStreamIdentifier(), expected, proposed: [] };
          pending.set(correlation, batch);
        }
        for (const m of req.getProposedMessagesList()) batch.proposed.push(proposedOf(m));
        if (!req.getIsFinal()) return;
        pending.delete(correlation);
        appendCalls++;
        const err = failure('append');
        if (err) return call.emit('error', err);
        const outcome = log.append(batch.stream, batch.expected, batch.proposed);
        const lost = failedAfterWrite(batch.stream);
        if (lost === 'drop') return;
        if (lost) return call.emit('error', lost);
        const resp = new streamsPb.BatchAppendResp();
        resp.setCorrelationId(req.getCorrelationId());
        resp.setStreamIdentifier(batch.identifier);
        if (outcome.ok) {
          const success = new streamsPb.BatchAppendResp.Success();
          if (outcome.revision >= 0) success.setCurrentRevision(String(outcome.revision));
          else success.setNoStream(new sharedPb.Empty());
          if (outcome.position === undefined) success.setNoPosition(new sharedPb.Empty());
          else {
            const position = new sharedPb.AllStreamPosition();
            position.setCommitPosition(String(outcome.position));
            position.setPreparePosition(String(outcome.position));
            success.setPosition(position);
          }
          resp.setSuccess(success);
        } else {
          const status = new statusPb.Status();
          const details = new Any();
          if ('deleted' in outcome) {
            status.setCode(grpc.status.FAILED_PRECONDITION);
            status.setMessage('Stream Deleted');
            const d = new sharedPb.StreamDeleted();
            d.setStreamIdentifier(batch.identifier);
            details.pack(d.serializeBinary(), 'event_store.client.StreamDeleted');
          } else if ('tooLarge' in outcome) {
            status.setCode(grpc.status.INVALID_ARGUMENT);
            status.setMessage('Maximum Append Size Exceeded');
            const m = new sharedPb.MaximumAppendSizeExceeded();
            m.setMaxappendsize(outcome.tooLarge);
            details.pack(m.serializeBinary(), 'event_store.client.MaximumAppendSizeExceeded');
          } else {
            status.setCode(grpc.status.FAILED_PRECONDITION);
            status.setMessage('Wrong Expected Version');
            const w = new sharedPb.WrongExpectedVersion();
            if (outcome.wrong.current >= 0) w.setCurrentStreamRevision(String(outcome.wrong.current));
            else w.setCurrentNoStream(new sharedPb.Empty());
            const e = outcome.wrong.expected;
            if (e.kind === 'revision') w.setExpectedStreamPosition(String(e.revision));
            else if (e.kind === 'no_stream') w.setExpectedNoStream(new sharedPb.Empty());
            else if (e.kind === 'stream_exists') w.setExpectedStreamExists(new sharedPb.Empty());
            else w.setExpectedAny(new sharedPb.Empty());
            details.pack(w.serializeBinary(), 'event_store.client.WrongExpectedVersion');
          }
          status.setDetails(details);
          resp.setError(status);
        }
        call.write(resp);
      });
      call.on('end', () => call.end());
    },
    delete(_call: unknown, callback: grpc.sendUnaryData<unknown>) {
      callback({ code: grpc.status.UNIMPLEMENTED, details: 'not part of the double' });
    },
    tombstone(call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<unknown>) {
      const o = call.request.getOptions();
      const stream = streamName(o.getStreamIdentifier());
      const expected: Expected = o.hasRevision() ? { kind: 'revision', revision: Number(o.getRevision()) } : o.hasNoStream() ? { kind: 'no_stream' } : o.hasStreamExists() ? { kind: 'stream_exists' } : { kind: 'any' };
      const outcome = log.tombstone(stream, expected);
      if (!outcome.ok) {
        if ('deleted' in outcome) return callback(streamDeleted(stream));
        const metadata = new grpc.Metadata();
        metadata.set('exception', 'wrong-expected-version');
        metadata.set('stream-name', stream);
        metadata.set('actual-version', String(outcome.wrong.current));
        return callback(Object.assign(new Error('double: wrong expected version'), { code: grpc.status.FAILED_PRECONDITION, details: 'Wrong expected version', metadata }));
      }
      const resp = new streamsPb.TombstoneResp();
      resp.setNoPosition(new sharedPb.Empty());
      callback(null, resp);
    },
  };
  const featuresService = {
    getSupportedMethods(_call: unknown, callback: grpc.sendUnaryData<unknown>) {
      const methods = new featuresPb.SupportedMethods();
      methods.setEventStoreServerVersion('24.10.0');
      methods.setMethodsList(
        ['read', 'append', 'batchappend'].map((name) => {
          const m = new featuresPb.SupportedMethod();
          m.setServiceName('event_store.client.streams.streams');
          m.setMethodName(name);
          m.setFeaturesList(name === 'read' ? ['all', 'stream', 'position', 'events', 'filter'] : []);
          return m;
        }),
      );
      callback(null, methods);
    },
  };

  /** A subscription to `$all`: confirmation, stored events after the start, caught_up, then live ones. */
  function subscribe(call: grpc.ServerWritableStream<any, any>, options: any): void {
    if (!options.hasAll()) {
      call.emit('error', Object.assign(new Error('stream subscriptions are not part of the double'), { code: grpc.status.UNIMPLEMENTED }));
      return;
    }
    const a = options.getAll();
    const filtered = options.hasFilter();
    const matches = filtered ? filterOf(options.getFilter()) : () => true;
    const f = filtered ? options.getFilter() : undefined;
    const every = f ? (f.hasMax() ? f.getMax() : DEFAULT_SEARCH_WINDOW) * Math.max(1, f.getCheckpointintervalmultiplier()) : Infinity;
    let looked = 0;
    const send = (e: StoredEvent) => {
      if (matches(e)) call.write(eventResp(e, true));
      // A filtered subscription tells how far it has looked, matching or not.
      if (++looked % every === 0) {
        const cp = new streamsPb.ReadResp.Checkpoint();
        cp.setCommitPosition(String(e.position));
        cp.setPreparePosition(String(e.position));
        const resp = new streamsPb.ReadResp();
        resp.setCheckpoint(cp);
        call.write(resp);
      }
    };
    const confirmation = new streamsPb.ReadResp.SubscriptionConfirmation();
    confirmation.setSubscriptionId(randomUUID());
    const confirmed = new streamsPb.ReadResp();
    confirmed.setConfirmation(confirmation);
    call.write(confirmed);
    // From a position: the events after it (a subscription's start is exclusive, unlike a read's).
    const after = a.hasPosition() ? Number(a.getPosition().getCommitPosition()) : a.hasEnd() ? Number.MAX_SAFE_INTEGER : -1;
    for (const e of log.events) if (e.position > after) send(e);
    const caughtUp = new streamsPb.ReadResp();
    caughtUp.setCaughtUp(new streamsPb.ReadResp.CaughtUp());
    call.write(caughtUp);
    const stop = log.onWrite(send);
    const end = () => {
      stop();
      open.delete(end);
    };
    open.add(end);
    call.on('cancelled', end);
    call.on('close', end);
    call.on('error', end);
  }

  function eventResp(e: StoredEvent, positions: boolean): unknown {
    eventsSent++;
    const recorded = new streamsPb.ReadResp.ReadEvent.RecordedEvent();
    const id = new sharedPb.UUID();
    id.setString(e.id);
    recorded.setId(id);
    const identifier = new sharedPb.StreamIdentifier();
    identifier.setStreamName(Buffer.from(e.stream, 'utf8'));
    recorded.setStreamIdentifier(identifier);
    recorded.setStreamRevision(String(e.revision));
    recorded.setPreparePosition(positions ? String(e.position) : U64_MAX);
    recorded.setCommitPosition(positions ? String(e.position) : U64_MAX);
    recorded.getMetadataMap().set('type', e.type);
    recorded.getMetadataMap().set('content-type', e.contentType);
    recorded.getMetadataMap().set('created', String(e.created));
    recorded.setCustomMetadata(e.customMetadata);
    recorded.setData(e.data);
    const event = new streamsPb.ReadResp.ReadEvent();
    event.setEvent(recorded);
    if (positions) event.setCommitPosition(String(e.position));
    else event.setNoPosition(new sharedPb.Empty());
    const resp = new streamsPb.ReadResp();
    resp.setEvent(event);
    return resp;
  }

  /** Serves the log on `at` (0: a free port), as a server (re)started. */
  async function serve(at: number): Promise<grpc.Server> {
    const s = new grpc.Server();
    s.addService(streamsGrpc.StreamsService, streamsService);
    s.addService(featuresGrpc.ServerFeaturesService, featuresService);
    port = await new Promise<number>((resolve, reject) =>
      s.bindAsync(`127.0.0.1:${at}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    return s;
  }
  let server: grpc.Server | undefined = await serve(0);
  const stop = async () => {
    for (const end of [...open]) end();
    server?.forceShutdown();
    server = undefined;
  };
  const restart = async () => {
    if (!server) server = await serve(port);
  };
  return {
    url: `esdb://127.0.0.1:${port}?tls=false`,
    events: log.events,
    get appendCalls() {
      return appendCalls;
    },
    get subscriptions() {
      return open.size;
    },
    get eventsSent() {
      return eventsSent;
    },
    failNext(count, failure, call) {
      for (let i = 0; i < count; i++) failures.push({ failure, call });
    },
    failAfterWrite(count, failure, stream) {
      for (let i = 0; i < count; i++) afterWrite.push({ failure, stream });
    },
    streamMetadata(stream) {
      const set = log.stream(`$$${stream}`)?.filter((e) => e.type === '$metadata').at(-1);
      return set ? JSON.parse(set.data.toString('utf8')) : undefined;
    },
    tombstoned: (stream) => log.tombstoned.has(stream),
    writeSystemEvent: () => log.writeSystemEvent(),
    stop,
    restart,
    close: stop,
  };
}

/**
 * The baseline of bench/esdb-append.bench.ts: the same appends sent as plain gRPC Append calls over
 * the same wire, with no client library and no checks (what the wire itself costs).
 */
export function rawAppender(url: string): { append(stream: string, events: Array<{ id: string; type: string; data: unknown }>): Promise<void>; close(): void } {
  const address = /^esdb:\/\/([^/?]+)/.exec(url)?.[1];
  if (!address) throw new Error(`not an esdb:// address: ${url}`);
  const client = new streamsGrpc.StreamsClient(address, grpc.credentials.createInsecure());
  return {
    append(stream, events) {
      return new Promise((resolve, reject) => {
        const call = client.append((err: Error | null) => (err ? reject(err) : resolve()));
        const options = new streamsPb.AppendReq.Options();
        const identifier = new sharedPb.StreamIdentifier();
        identifier.setStreamName(Buffer.from(stream, 'utf8'));
        options.setStreamIdentifier(identifier);
        options.setAny(new sharedPb.Empty());
        const header = new streamsPb.AppendReq();
        header.setOptions(options);
        call.write(header);
        for (const e of events) {
          const message = new streamsPb.AppendReq.ProposedMessage();
          const id = new sharedPb.UUID();
          id.setString(e.id);
          message.setId(id);
          message.getMetadataMap().set('type', e.type);
          message.getMetadataMap().set('content-type', 'application/json');
          message.setData(Buffer.from(JSON.stringify(e.data)));
          message.setCustomMetadata(Buffer.from('{}'));
          const req = new streamsPb.AppendReq();
          req.setProposedMessage(message);
          call.write(req);
        }
        call.end();
      });
    },
    close: () => client.close(),
  };
}
