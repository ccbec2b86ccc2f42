import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { EVENT_STORE, WrongExpectedRevisionError, type EventStore } from '#mds/event-store';
import { conflict, invalidRequest, unprocessable } from '#mds/platform';
import { ACCESS_DEPS, nowIso, type AccessDeps } from '../access.deps';
import { DATASOURCE_CREATED, DATASOURCE_DATATYPES, integrationStream, type DatasourceCreated, type DatasourceDatatype } from '../access.events';
import { CreateDatasourceCommand } from './create-datasource.command';

/** A datasource as the legacy API shows it (also inside its integration's `datasources`). */
export interface DatasourceView {
  id: string;
  name: string;
  integration: string;
  datatype: DatasourceDatatype;
  enabled: boolean;
  created_at: string;
}

export function datasourceView(e: DatasourceCreated): DatasourceView {
  return { id: e.datasource_id, name: e.name, integration: e.integration_id, datatype: e.datatype, enabled: true, created_at: e.created_at };
}

const isDatatype = (v: unknown): v is DatasourceDatatype => typeof v === 'string' && (DATASOURCE_DATATYPES as readonly string[]).includes(v);

/** Appends `DatasourceCreated` to the integration's stream, expecting its last revision (retried when another append won). */
@CommandHandler(CreateDatasourceCommand)
export class CreateDatasourceHandler implements ICommandHandler<CreateDatasourceCommand, { datasource: DatasourceView; position: number }> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ACCESS_DEPS) private readonly deps: AccessDeps,
  ) {}

  async execute(cmd: CreateDatasourceCommand) {
    const { name, integration, datatype } = cmd.body;
    if (typeof name !== 'string' || name.trim() === '' || name.length > 200) throw invalidRequest('name is required: a string of at most 200 characters');
    if (typeof integration !== 'string' || integration === '') throw invalidRequest('integration is required: the id of an integration');
    if (!isDatatype(datatype)) throw invalidRequest(`datatype must be one of ${DATASOURCE_DATATYPES.join(', ')}`);
    const stream = integrationStream(integration);
    for (let attempt = 0; attempt < 5; attempt++) {
      const last = /^[A-Za-z0-9-]{1,64}$/.test(integration) ? await this.store.readStream(stream, { direction: 'backwards', limit: 1 }) : [];
      if (last.length === 0) throw unprocessable(`integration ${integration.slice(0, 64)} does not exist`);
      const data: DatasourceCreated = {
        datasource_id: randomUUID(),
        integration_id: integration,
        name,
        datatype,
        created_by: cmd.principal.ownerId,
        created_at: nowIso(this.deps),
      };
      try {
        const result = await this.store.append(stream, [{ type: DATASOURCE_CREATED, data, metadata: { actor: cmd.principal.ownerId, token_id: cmd.principal.tokenId, request_id: cmd.requestId } }], {
          expectedRevision: last[0].revision,
        });
        return { datasource: datasourceView(data), position: result.position };
      } catch (err) {
        if (!(err instanceof WrongExpectedRevisionError)) throw err;
      }
    }
    throw conflict(`integration ${integration} changed concurrently; try again`);
  }
}
