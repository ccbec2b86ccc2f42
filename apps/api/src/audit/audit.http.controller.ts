import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AUDIT_READ_MODEL, type AuditEvent, type AuditReadModel } from '#mds/projections';
import { withParam } from '../imports/paging';
import { Public, RequirePermission } from '../access/permissions';
import { AuditEventsQuery } from './audit-events.request.dto';

@ApiTags('audit')
@Controller('api/audit')
export class AuditHttpController {
  constructor(@Inject(AUDIT_READ_MODEL) private readonly audit: AuditReadModel) {}

  @Get('public-key')
  @Public()
  @ApiOperation({
    summary: 'The public key that checks the audit trail\'s signatures (Ed25519, PEM): no authentication',
    description: 'Save `public_key` to a file and run `mds audit verify <export> --public-key <file>`: the signed start, checkpoints and end of an export are checked with it.',
  })
  @ApiOkResponse({ description: '`{algorithm: "Ed25519", key_id, public_key}`' })
  publicKey(): { algorithm: 'Ed25519'; key_id: string; public_key: string } {
    const key = this.audit.publicKey();
    return { algorithm: 'Ed25519', key_id: key.keyId, public_key: key.pem };
  }

  @Get('events')
  @RequirePermission('audit:read')
  @ApiOperation({
    summary: 'The event log in position order (auditors, admins): `from` (a position, exclusive), `limit` (100, at most 1,000), `type` (comma-separated), `stream`, `stream_prefix`, `since`/`until` (times), `actor`',
    description:
      'Each event: `{position, stream, type, revision, created_at, data, metadata}`; metadata carries `actor` (users/<id> or integrations/<id>), `token_id`, `request_id`, and `run_id` for imports. ' +
      'Follow `next_url` (null on the last page): positions are given in commit order, so paging while imports run misses and repeats nothing.',
  })
  @ApiOkResponse({ description: '`{events: [...], count, next_url}`' })
  async events(@Req() request: FastifyRequest, @Query() query: AuditEventsQuery): Promise<{ events: AuditEvent[]; count: number; next_url: string | null }> {
    const filter = {
      ...(query.type ? { types: query.type.split(',') } : {}),
      ...(query.stream ? { streams: [query.stream] } : {}),
      ...(query.stream_prefix ? { streamPrefixes: [query.stream_prefix] } : {}),
      ...(query.since ? { since: new Date(query.since).toISOString() } : {}),
      ...(query.until ? { until: new Date(query.until).toISOString() } : {}),
      ...(query.actor ? { actor: query.actor } : {}),
    };
    const page = await this.audit.events({ from: query.from ?? 0, limit: query.limit ?? 100, filter });
    const next = page.next === null ? null : withParam(request, 'from', String(page.next));
    return { events: page.events, count: page.events.length, next_url: next };
  }
}
