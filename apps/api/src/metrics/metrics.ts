import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ServiceStatus } from '#mds/projections';

type ReadSide = Awaited<ReturnType<ServiceStatus['readSide']>>;

/** Prometheus metrics of one process: HTTP traffic, event log head, projection lag. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;

  constructor(status: Pick<ServiceStatus, 'readSide' | 'readReplicas'>) {
    collectDefaultMetrics({ register: this.registry, prefix: 'mds_process_' });
    this.requests = new Counter({
      name: 'mds_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'mds_http_request_duration_seconds',
      help: 'Time from request received to response sent',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    // One read of the database per scrape, shared by the gauges below: the registry collects them
    // all at once, so one gauge setting another's values would be read before it had.
    let pending: Promise<ReadSide> | undefined;
    const readSide = () =>
      (pending ??= status.readSide().finally(() => setImmediate(() => (pending = undefined))));
    const perProjection = (name: string, help: string, value: (r: ReadSide, projection: string) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['projection'],
        registers: [this.registry],
        // Collected at scrape time from the database, so every process reports the same truth.
        async collect() {
          const r = await readSide();
          for (const s of r.statuses) {
            const v = value(r, s.name);
            if (v !== undefined) this.set({ projection: s.name }, v);
          }
        },
      });
    new Gauge({
      name: 'mds_event_log_head_position',
      help: 'Position of the last committed event',
      registers: [this.registry],
      async collect() {
        this.set((await readSide()).head);
      },
    });
    perProjection('mds_projection_checkpoint', 'Log position applied by the live generation of each projection', (r, p) => r.statuses.find((s) => s.name === p)?.checkpoint);
    perProjection('mds_projection_lag_events', 'Events in the log not yet applied by the live generation of each projection', (r, p) => r.statuses.find((s) => s.name === p)?.lag);
    perProjection(
      'mds_projection_parked_events',
      'Events the live generation of each projection could not apply and went past (mds projections parked)',
      (r, p) => r.trouble.find((t) => t.name === p)?.parked,
    );
    this.watchReadReplicas(status);
    perProjection(
      'mds_projection_apply_failures',
      'Failed attempts to apply a page, by the live generation of each projection since it was built',
      (r, p) => r.trouble.find((t) => t.name === p)?.failures,
    );
  }

  /**
   * Read replicas (DATABASE_READ_URL), from this process's checks: each one's lag and whether it serves
   * reads, and where this process's replica-eligible reads went and why.
   */
  private watchReadReplicas(status: Pick<ServiceStatus, 'readReplicas'>): void {
    const perReplica = (name: string, help: string, value: (r: ReturnType<ServiceStatus['readReplicas']>['replicas'][number]) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['replica'],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const r of status.readReplicas().replicas) {
            const v = value(r);
            if (v !== null) this.set({ replica: r.replica }, v);
          }
        },
      });
    perReplica('mds_read_replica_lag_seconds', "How long ago the primary wrote WAL each replica has not replayed yet (0: it has everything), at the last check", (r) => r.lag_seconds);
    perReplica('mds_read_replica_lag_bytes', "WAL bytes each replica's replay trails the primary by, at the last check", (r) => r.lag_bytes);
    perReplica('mds_read_replica_serving', '1 while a replica serves reads; 0 while it is down, lagging past DATABASE_READ_MAX_LAG_MS, or not checked yet', (r) => (r.state === 'streaming' ? 1 : 0));
    const counted = new Map<string, number>();
    new Counter({
      name: 'mds_read_replica_reads_total',
      help: 'Reads a replica may serve, by where they were served (a replica, or primary) and why: replica, no_usable_replica, position_not_replayed (Min-Position), replica_failed',
      labelNames: ['served_by', 'route'],
      registers: [this.registry],
      collect() {
        for (const r of status.readReplicas().routes) {
          const key = `${r.servedBy}\n${r.route}`;
          this.inc({ served_by: r.servedBy, route: r.route }, r.count - (counted.get(key) ?? 0));
          counted.set(key, r.count);
        }
      },
    });
  }

  /** The request-body memory budget (MDS_BODY_MEMORY_BUDGET), read at scrape time. */
  watchBodyBudget(budget: { readonly bytesInFlight: number; readonly requestsWaiting: number }): void {
    new Gauge({
      name: 'mds_http_body_bytes_in_flight',
      help: 'Bytes of request bodies held against the memory budget: received or being handled, not answered yet',
      registers: [this.registry],
      collect() {
        this.set(budget.bytesInFlight);
      },
    });
    new Gauge({
      name: 'mds_http_body_requests_waiting',
      help: 'Requests waiting for room in the request-body memory budget',
      registers: [this.registry],
      collect() {
        this.set(budget.requestsWaiting);
      },
    });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  }
}
