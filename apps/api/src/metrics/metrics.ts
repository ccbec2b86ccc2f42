import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { readSideStatus } from '#mds/projections';
import type { Runtime } from '#mds/runtime';

/** Prometheus metrics of one process: HTTP traffic, event log head, projection lag. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;

  constructor(runtime: Runtime) {
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
    const checkpoint = new Gauge({
      name: 'mds_projection_checkpoint',
      help: 'Log position applied by the live generation of each projection',
      labelNames: ['projection'],
      registers: [this.registry],
    });
    const head = new Gauge({ name: 'mds_event_log_head_position', help: 'Position of the last committed event', registers: [this.registry] });
    new Gauge({
      name: 'mds_projection_lag_events',
      help: 'Events in the log not yet applied by the live generation of each projection',
      labelNames: ['projection'],
      registers: [this.registry],
      // Collected at scrape time from the database, so every process reports the same truth.
      async collect() {
        const { head: position, statuses } = await readSideStatus(runtime, runtime.projections);
        head.set(position);
        for (const s of statuses) {
          this.set({ projection: s.name }, s.lag);
          checkpoint.set({ projection: s.name }, s.checkpoint);
        }
      },
    });
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
  }
}
