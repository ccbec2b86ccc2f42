import {
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

export const createOutlet = (store: EventStore, secrets: SecretBox, datatargetId: string, input: OutletInput & { outlet_type?: string }, meta: CommandMeta) =>
  new CreateOutletHandler(store, secrets).execute(new CreateOutletCommand(datatargetId, input, meta));

export const postMessages = (store: EventStore, datatargetId: string, body: { messages: unknown[] }, meta: CommandMeta) => new PostMessagesHandler(store).execute(new PostMessagesCommand(datatargetId, body, meta));

export const controlOutlet = (store: EventStore, outletId: string, action: OperatorAction, meta: CommandMeta, toMessageNumber?: number) =>
  new ControlOutletHandler(store).execute(new ControlOutletCommand(outletId, action, meta, toMessageNumber));
