import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, type EventStore } from '#mds/event-store';
import { invalidRequest } from '#mds/platform';
import { ACCESS_DEPS, type AccessDeps } from '../access.deps';
import { INTEGRATION_CREATED, integrationStream, type IntegrationCreated } from '../access.events';
import { CreateIntegrationCommand } from './create-integration.command';

/** The spec's Integration resource. */
export interface IntegrationView {
  id: string;
  name: string;
  integration_name: string;
  enabled: boolean;
  available_datasources: string[];
  created_at: string;
  datasources: unknown[];
  datatargets: unknown[];
  datatarget_templates: unknown[];
  description: string;
  configuration: Record<string, unknown>;
  parameters: { name: string; description: string };
}

export function integrationView(e: IntegrationCreated): IntegrationView {
  return {
    id: e.integration_id,
    name: e.parameters.name,
    integration_name: e.integration_name,
    enabled: e.enabled,
    available_datasources: e.available_datasources,
    created_at: e.created_at,
    datasources: e.datasources,
    datatargets: e.datatargets,
    datatarget_templates: e.datatarget_templates,
    description: e.parameters.description,
    configuration: e.configuration,
    parameters: e.parameters,
  };
}

/** Timestamps with microseconds, as the spec shows for integrations. */
function microTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const str = (v: unknown, field: string, max: number): string => {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string' || v.length > max) throw invalidRequest(`${field} must be a string of at most ${max} characters`);
  return v;
};

@CommandHandler(CreateIntegrationCommand)
export class CreateIntegrationHandler implements ICommandHandler<CreateIntegrationCommand, { integration: IntegrationView; position: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: CreateIntegrationCommand) {
    // Plugins of 2020–2023 send the legacy body `{name, description}`: it means parameters {name, description}.
    const legacy = (cmd.body.parameters === undefined || cmd.body.parameters === null) && cmd.body.name !== undefined;
    const params = legacy ? { name: cmd.body.name, description: cmd.body.description } : cmd.body.parameters;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      throw invalidRequest('parameters must be an object {name, description} (or send the legacy body {name, description})');
    }
    const { name, description } = params as Record<string, unknown>;
    const field = legacy ? '' : 'parameters.';
    if (typeof name !== 'string' || name.trim() === '') throw invalidRequest(`${field}name is required`);
    const id = randomUUID();
    const data: IntegrationCreated = {
      integration_id: id,
      integration_name: str(cmd.body.integration_name, 'integration_name', 200),
      parameters: { name: str(name, `${field}name`, 200), description: str(description, `${field}description`, 2000) },
      enabled: true,
      available_datasources: [],
      datasources: [],
      datatargets: [],
      datatarget_templates: [],
      configuration: {},
      created_by: cmd.principal.ownerId,
      created_at: microTimestamp(this.deps.now ? this.deps.now() : new Date()),
    };
    const result = await this.store.append(integrationStream(id), [{ type: INTEGRATION_CREATED, data, metadata: { actor: cmd.principal.ownerId, token_id: cmd.principal.tokenId, request_id: cmd.requestId } }], {
      expectedRevision: 'no_stream',
    });
    return { integration: integrationView(data), position: result.position };
  }
}
