import { notFound } from '#mds/platform';
import { INTEGRATION_CREATED, INTEGRATION_DISABLED, INTEGRATION_ENABLED, type IntegrationEvent } from './access.events';

/** An integration's rules, pure: whether it exists and is enabled, and what switching it appends. */
export interface IntegrationState {
  exists: boolean;
  enabled: boolean;
}

export const initialIntegrationState: IntegrationState = { exists: false, enabled: false };

export function evolveIntegration(state: IntegrationState, event: IntegrationEvent): IntegrationState {
  switch (event.type) {
    case INTEGRATION_CREATED:
      return { exists: true, enabled: event.data.enabled };
    case INTEGRATION_DISABLED:
      return { ...state, enabled: false };
    case INTEGRATION_ENABLED:
      return { ...state, enabled: true };
    default:
      return state;
  }
}

/**
 * Switching an integration on or off: one event when it changes, none when it already is so. (The
 * handler revokes a disabled integration's tokens either way, so a retry finishes an interrupted one.)
 */
export function decideEnabled(state: IntegrationState, id: string, enabled: boolean, by: string, at: string): IntegrationEvent[] {
  if (!state.exists) throw notFound(`No integration ${id.slice(0, 64)}`);
  if (state.enabled === enabled) return [];
  return [{ type: enabled ? INTEGRATION_ENABLED : INTEGRATION_DISABLED, data: { integration_id: id, by, at } }];
}
