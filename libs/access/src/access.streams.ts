import type { EventStore } from '#mds/event-store';
import { userStream, type UserEvent } from './access.events';
import { evolveUser, initialUserState, type UserState } from './user.decider';

/** Loads a user's state by folding its stream; `revision` is the expected revision for the next append. */
export async function loadUser(store: EventStore, userId: string): Promise<{ state: UserState; revision: number | 'no_stream' }> {
  const events = await store.readStream(userStream(userId));
  const state = events.reduce((s, e) => evolveUser(s, { type: e.type, data: e.data } as UserEvent), initialUserState);
  return { state, revision: events.length === 0 ? 'no_stream' : events[events.length - 1].revision };
}
