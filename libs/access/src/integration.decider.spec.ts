import { INTEGRATION_CREATED, INTEGRATION_DISABLED, INTEGRATION_ENABLED, type IntegrationEvent } from './access.events';
import { decideEnabled, evolveIntegration, initialIntegrationState, type IntegrationState } from './integration.decider';

const created: IntegrationEvent = {
  type: INTEGRATION_CREATED,
  data: {
    integration_id: 'i1', integration_name: '', parameters: { name: 'Shop', description: '' }, enabled: true, available_datasources: [], datasources: [],
    datatargets: [], datatarget_templates: [], configuration: {}, created_by: 'users/root', created_at: '2026-01-01T00:00:00.000000Z',
  },
};
const given = (...events: IntegrationEvent[]): IntegrationState => events.reduce(evolveIntegration, initialIntegrationState);

describe('switching an integration', () => {
  it('given an enabled integration, when it is disabled, then IntegrationDisabled names who did it', () => {
    expect(decideEnabled(given(created), 'i1', false, 'users/root', 'now')).toEqual([{ type: INTEGRATION_DISABLED, data: { integration_id: 'i1', by: 'users/root', at: 'now' } }]);
  });

  it('given a disabled integration, when it is disabled again, then nothing is appended; when enabled, then IntegrationEnabled', () => {
    const disabled = given(created, { type: INTEGRATION_DISABLED, data: { integration_id: 'i1', by: 'users/root', at: 'now' } });
    expect(disabled).toEqual({ exists: true, enabled: false });
    expect(decideEnabled(disabled, 'i1', false, 'users/root', 'later')).toEqual([]);
    expect(decideEnabled(disabled, 'i1', true, 'users/root', 'later')).toEqual([{ type: INTEGRATION_ENABLED, data: { integration_id: 'i1', by: 'users/root', at: 'later' } }]);
    expect(decideEnabled(given(created), 'i1', true, 'users/root', 'later')).toEqual([]);
  });

  it('given no integration, then 404', () => {
    expect(() => decideEnabled(initialIntegrationState, 'nope', false, 'users/root', 'now')).toThrow(expect.objectContaining({ status: 404, message: 'No integration nope' }));
  });
});
