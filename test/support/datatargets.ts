import {
  outletStateOf,
  outletStream,
  ControlOutletCommand,
  ControlOutletHandler,
  CreateDatatargetCommand,
  CreateDatatargetHandler,
  CreateOutletCommand,
  CreateOutletHandler,
  PostMessagesCommand,
  PostMessagesHandler,
  type CommandMeta,
  type OperatorAction,
  type OutletInput,
} from '#mds/datatargets';
import type { EventStore } from '#mds/event-store';
import type { SecretBox } from '#mds/platform';

/**
 * The datatargets commands as tests of the worker send them: through their handlers, on the real
 * log, without the HTTP layer (whose DTOs these inputs already satisfy).
 */
export const createDatatarget = (store: EventStore, input: CreateDatatargetCommand['input'], meta: CommandMeta) => new CreateDatatargetHandler(store).execute(new CreateDatatargetCommand(input, meta));

// The workers' tests deliver to receivers on loopback, as with OUTLET_ALLOW_PRIVATE=true.
export const createOutlet = (store: EventStore, secrets: SecretBox, datatargetId: string, input: OutletInput & { outlet_type?: string }, meta: CommandMeta) =>
  new CreateOutletHandler(store, secrets, { allowPrivate: true }).execute(new CreateOutletCommand(datatargetId, input, meta));

export const postMessages = (store: EventStore, datatargetId: string, body: { messages: unknown[] }, meta: CommandMeta) => new PostMessagesHandler(store).execute(new PostMessagesCommand(datatargetId, body, meta));

export const controlOutlet = (store: EventStore, outletId: string, action: OperatorAction, meta: CommandMeta, toMessageNumber?: number) =>
  new ControlOutletHandler(store).execute(new ControlOutletCommand(outletId, action, meta, toMessageNumber));

/** The outlet's last delivered message number, as its stream's last event records it. */
export const lastDelivered = async (store: EventStore, outletId: string) =>
  outletStateOf((await store.readStream(outletStream(outletId), { direction: 'backwards', limit: 1 }))[0]).last_delivered_message_number;

/**
 * How the batches one outlet's receiver got, in arrival order, show the delivery: each must be
 * consecutive messages starting no later than right after the highest delivered so far (in order,
 * nothing skipped). Returns the batches that are not, the highest message, and how many were sent again.
 */
export function deliveryOrder(batches: number[][]): { outOfOrder: number[][]; highest: number; duplicates: number } {
  const outOfOrder: number[][] = [];
  let highest = 0;
  let duplicates = 0;
  for (const batch of batches) {
    if (batch.some((n, i) => n !== batch[0] + i) || batch[0] > highest + 1) outOfOrder.push(batch);
    if (batch[0] <= highest) duplicates++;
    highest = Math.max(highest, batch[batch.length - 1]);
  }
  return { outOfOrder, highest, duplicates };
}
