import type { EventStore } from '#mds/event-store';
import { integrationStream, tokenStream, USER_CREATED, USER_DELETED, userStream, type IntegrationEvent, type TokenEvent, type UserCreated, type UserEvent } from './access.events';
import { evolveIntegration, initialIntegrationState, type IntegrationState } from './integration.decider';
import { evolveToken, initialTokenState, type TokenState } from './token.decider';
import { evolveUser, initialUserState, type UserState } from './user.decider';

export interface Loaded<S> {
  state: S;
  /** The expected revision for the next append. */
  revision: number | 'no_stream';
  /** Log position of the stream's last event (0 for none): what a reader waits for to see this state. */
  position: number;
}

/** Folds a stream into its state. */
async function loadState<S, E>(store: EventStore, stream: string, evolve: (state: S, event: E) => S, initial: S): Promise<Loaded<S>> {
  const events = await store.readStream(stream);
  const state = events.reduce((s, e) => evolve(s, { type: e.type, data: e.data } as E), initial);
  const last = events[events.length - 1];
  return { state, revision: last ? last.revision : 'no_stream', position: last ? last.position : 0 };
}

const none = <S>(state: S): Loaded<S> => ({ state, revision: 'no_stream', position: 0 });

/** Ids of users, tokens and integrations are uuids or hex: anything else names no stream (and is not read). */
const ID = /^[A-Za-z0-9-]{1,64}$/;

export const loadUser = (store: EventStore, userId: string): Promise<Loaded<UserState>> =>
  loadState<UserState, UserEvent>(store, userStream(userId), evolveUser, initialUserState);

export const loadToken = async (store: EventStore, tokenId: string): Promise<Loaded<TokenState>> =>
  ID.test(tokenId) ? loadState<TokenState, TokenEvent>(store, tokenStream(tokenId), evolveToken, initialTokenState) : none(initialTokenState);

export const loadIntegration = async (store: EventStore, integrationId: string): Promise<Loaded<IntegrationState>> =>
  ID.test(integrationId) ? loadState<IntegrationState, IntegrationEvent>(store, integrationStream(integrationId), evolveIntegration, initialIntegrationState) : none(initialIntegrationState);

/**
 * The ids of the users who hold the superuser role now: every UserCreated with it, less the users
 * deleted since. Read from the log by type (users are few), so a deletion just made counts at once.
 */
export async function loadSuperusers(store: EventStore): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let after = 0; ; ) {
    const page = await store.readAll({ after, limit: 1000, filter: { types: [USER_CREATED, USER_DELETED] } });
    for (const e of page.events) {
      const { user_id: id, roles } = e.data as Partial<UserCreated> & { user_id: string };
      if (e.type === USER_CREATED && roles?.includes('superuser')) ids.add(id);
      else ids.delete(id);
    }
    if (page.position === after) return ids;
    after = page.position;
  }
}
