import type { FastifyInstance } from 'fastify';
import { AppError, formatSize } from '#mds/platform';

/** Longest a request waits for room in the budget before it is refused. */
export const BODY_BUDGET_WAIT_MS = 2000;
/** Retry-After of a refused request, in seconds: about the time a large import takes to be handled. */
export const BODY_BUDGET_RETRY_AFTER_S = 5;

/** A request's share of the budget: granted at once, later, or never; released once, whatever happened. */
export interface BodyReservation {
  /** true once the bytes are held; false when the wait ran out or the reservation was released first. */
  readonly granted: Promise<boolean>;
  release(): void;
}

interface Waiter {
  bytes: number;
  grant(held: boolean): void;
}

/**
 * Bytes of request bodies in flight, held against a budget. Requests are admitted in arrival order;
 * one that does not fit waits up to `waitMs`. Whatever is already in flight, a request is admitted
 * when nothing else is, so a body the limit allows is always served eventually.
 */
export class BodyBudget {
  private inFlight = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly budget: number,
    private readonly waitMs = BODY_BUDGET_WAIT_MS,
  ) {}

  get bytesInFlight(): number {
    return this.inFlight;
  }

  get requestsWaiting(): number {
    return this.queue.length;
  }

  reserve(bytes: number): BodyReservation {
    let state: 'waiting' | 'held' | 'done' = 'waiting';
    let timer: NodeJS.Timeout | undefined;
    let waiter: Waiter | undefined;
    const granted = new Promise<boolean>((resolve) => {
      if (this.queue.length === 0 && this.fits(bytes)) {
        this.inFlight += bytes;
        state = 'held';
        resolve(true);
        return;
      }
      waiter = {
        bytes,
        grant: (held) => {
          clearTimeout(timer);
          state = held ? 'held' : 'done';
          resolve(held);
        },
      };
      this.queue.push(waiter);
      timer = setTimeout(() => this.withdraw(waiter!), this.waitMs);
    });
    return {
      granted,
      release: () => {
        if (state === 'held') {
          state = 'done';
          this.inFlight -= bytes;
          this.admit();
        } else if (state === 'waiting' && waiter) {
          this.withdraw(waiter);
        }
      },
    };
  }

  private fits(bytes: number): boolean {
    return this.inFlight === 0 || this.inFlight + bytes <= this.budget;
  }

  private withdraw(waiter: Waiter): void {
    const i = this.queue.indexOf(waiter);
    if (i === -1) return;
    this.queue.splice(i, 1);
    waiter.grant(false);
    // The one that left may have been all that held back those behind it.
    if (i === 0) this.admit();
  }

  private admit(): void {
    while (this.queue.length > 0 && this.fits(this.queue[0].bytes)) {
      const next = this.queue.shift()!;
      this.inFlight += next.bytes;
      next.grant(true);
    }
  }
}

/**
 * The bytes a request's body will take while it is received and handled, from its Content-Length.
 * A chunked body (no Content-Length) is counted as the body limit: its size is not known until it has
 * arrived, and counting it as it streams would admit it before knowing it fits. A declared length over
 * the limit counts nothing: Fastify refuses it with 413 before reading a byte.
 */
export function bodyBytes(headers: Record<string, string | string[] | undefined>, bodyLimit: number): number {
  const length = headers['content-length'];
  if (typeof length === 'string') {
    const bytes = Number(length);
    return Number.isSafeInteger(bytes) && bytes > 0 && bytes <= bodyLimit ? bytes : 0;
  }
  return headers['transfer-encoding'] === undefined ? 0 : bodyLimit;
}

/**
 * Bounds the memory of request bodies in flight (4 parallel 31 MB imports took the process from 148 to
 * 792 MiB): each request holds its body's bytes from onRequest until its response is sent or its
 * connection closes. One that would go over the budget waits a little for room, then gets 503.
 */
export function installBodyBudget(fastify: FastifyInstance, options: { budget: number; bodyLimit: number; waitMs?: number }): BodyBudget {
  const budget = new BodyBudget(options.budget, options.waitMs);
  fastify.addHook('onRequest', async (request, reply) => {
    const bytes = bodyBytes(request.headers, options.bodyLimit);
    if (bytes === 0) return;
    const reservation = budget.reserve(bytes);
    // 'close' comes after the response is sent and also when the client goes away first (mid-body,
    // or while waiting here), where onResponse never runs: the share is released either way.
    reply.raw.once('close', reservation.release);
    if (await reservation.granted) return;
    const refused = new AppError(
      503,
      'unavailable',
      `The server is receiving as many request bodies as its memory budget (${formatSize(options.budget)}) allows; nothing was recorded. Try again in ${BODY_BUDGET_RETRY_AFTER_S} s`,
    );
    // Closed after the answer: reading the rest of a body nobody will handle would only cost time.
    return reply.code(503).header('retry-after', String(BODY_BUDGET_RETRY_AFTER_S)).header('connection', 'close').header('content-type', 'application/json; charset=utf-8').send(refused.toBody());
  });
  return budget;
}
