import type { Pool } from 'pg';
import type { EventStore } from '#mds/event-store';
import { dropRetiredGenerations, listGenerations } from './catalog';
import type { Projection } from './projection';
import { assertValidProjection } from './projection';
import { ProjectionWorker, type ProjectionStatus, type RunnerDeps } from './projection-runner';
import { AuditAnchor } from '../audit/audit-anchor';

/** Runs every registered projection (each behind its own lease) in this process. */
export class Projector {
  private readonly workers: ProjectionWorker[] = [];
  private readonly anchor: AuditAnchor;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly projections: Projection[],
  ) {
    projections.forEach(assertValidProjection);
    this.anchor = new AuditAnchor(deps);
  }

  async start(): Promise<void> {
    await dropRetiredGenerations(this.deps.pool);
    for (const p of this.projections) {
      const worker = new ProjectionWorker(this.deps, p);
      worker.start();
      this.workers.push(worker);
    }
    this.anchor.start();
  }

  /** Names of the projections whose lease this process holds right now. */
  held(): string[] {
    return this.projections.filter((_, i) => this.workers[i]?.leaseHeld).map((p) => p.name);
  }

  async stop(): Promise<void> {
    await this.anchor.stop();
    await Promise.all(this.workers.map((w) => w.stop()));
    this.workers.length = 0;
  }
}

export async function projectionStatuses(pool: Pool, store: EventStore, projections: Projection[]): Promise<ProjectionStatus[]> {
  const [generations, head] = await Promise.all([listGenerations(pool), store.headPosition()]);
  return projections.map((p) => {
    const live = generations.find((g) => g.name === p.name && g.state === 'live');
    const building = generations.find((g) => g.name === p.name && g.state === 'building');
    const checkpoint = live?.checkpoint ?? 0;
    return {
      name: p.name,
      version: p.version,
      generation: live?.generation,
      liveVersion: live?.version,
      checkpoint,
      lag: Math.max(head - checkpoint, 0),
      ...(building ? { building: { generation: building.generation, version: building.version, checkpoint: building.checkpoint } } : {}),
    };
  });
}
