import { Inject, Injectable } from '@nestjs/common';
import { serviceUnavailable, type Logger } from '#mds/platform';
import { ProjectionTimeoutError, READ_MODEL_PROGRESS, type ReadModelProgress } from '#mds/projections';
import { API_LOGGER } from '../platform/tokens';

/**
 * Waits until a projection has applied an append, so the client's next request sees it. The append
 * is durable already: if no projector catches up in time the answer still goes out (logged), unless
 * `required`: then it is a 503 saying so (a revocation must not be answered before it holds).
 */
@Injectable()
export class ReadYourWrites {
  constructor(
    @Inject(READ_MODEL_PROGRESS) private readonly progress: ReadModelProgress,
    @Inject(API_LOGGER) private readonly logger: Logger,
  ) {}

  async settled(projection: string, position: number, options: { timeoutMs?: number; required?: string } = {}): Promise<void> {
    try {
      await this.progress.reached(projection, position, options.timeoutMs ?? 10_000);
    } catch (err) {
      if (!(err instanceof ProjectionTimeoutError)) throw err;
      this.logger.warn({ projection, position }, 'answered before the read model caught up: is a projector running?');
      if (options.required) throw serviceUnavailable(`${options.required} is recorded in the event log, but the ${projection} read model has not applied it yet (is a projector running?); it holds once it has. Send the request again to wait for it`);
    }
  }
}
