import { Readable, pipeline } from 'node:stream';
import { constants as zlib, createGzip } from 'node:zlib';
import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fixTimestampsInJson, invalidRequest, notFound } from '#mds/platform';
import { EXPORT_DATATYPES, EXPORT_READ_MODEL, EXPORT_WITH_DELETED, readingAfter, type ExportDatatype, type ExportPage, type ExportPageOptions, type ExportReadModel } from '#mds/projections';
import { RequirePermission } from '../access/permissions';
import { MIN_POSITION_HEADER, minPositionOf } from '../platform/read-position';
import { includeDeleted } from './filters';

/** Records a page: one query, one text (~4 MB of customers); at most two pages are held at once. */
export const EXPORT_PAGE = 10_000;
/** gzip level 1: several times faster than the default 6 for a few percent more bytes of JSON, so compressing keeps up with PostgreSQL. */
const GZIP_LEVEL = zlib.Z_BEST_SPEED;

/** Whether an Accept-Encoding header takes gzip (`gzip`, `x-gzip` or `*`, not with q=0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  for (const part of [header ?? ''].flat().join(',').split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (name !== 'gzip' && name !== 'x-gzip' && name !== '*') continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

@Controller()
export class ExportHttpController {
  constructor(@Inject(EXPORT_READ_MODEL) private readonly exports: ExportReadModel) {}

  @Get('api/export/:datatype')
  @ApiTags('retrieval')
  @RequirePermission('data:read')
  @ApiOperation({
    summary: 'Every record of a datatype as NDJSON: one record a line, as its retrieval list shows it, in the list\'s key order',
    description:
      'Streams customers, products, events, sales or shops: the lines of every page of `/api/data/<datatype>/`, in the same order, in one answer ' +
      '(deleted records left out; forgotten customers as `{"is_forgotten": true}`; products and shops imported with `is_deleted: true` only with `?include_deleted=true`). ' +
      'Resumable: `?after=<the id of the last whole line received>` (products: and `&after_language=<its language>` when it has one) streams the lines after it; ' +
      'a forgotten customer\'s line has no id, so resume from the last line that has one. ' +
      '`Accept-Encoding: gzip` → `Content-Encoding: gzip`. Read a page at a time, so records changed meanwhile show as they are when their page is read. ' +
      'An export cut short ends without its last chunk (curl exits 18): resume from the last whole line.',
  })
  @ApiParam({ name: 'datatype', enum: EXPORT_DATATYPES })
  @ApiQuery({ name: 'after', required: false, type: String, description: 'The `id` of the last whole line received: the export goes on after it' })
  @ApiQuery({ name: 'after_language', required: false, type: String, description: 'Products: the `language` of the last whole line received, when it has one' })
  @ApiQuery({ name: 'include_deleted', required: false, type: Boolean, description: 'Products and shops: true streams rows imported with is_deleted: true too, with `is_deleted: true`' })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: 'NDJSON, one record a line' })
  async export(@Req() request: FastifyRequest, @Param('datatype') datatype: string, @Res() reply: FastifyReply): Promise<void> {
    if (!(EXPORT_DATATYPES as readonly string[]).includes(datatype)) throw notFound(`No export of ${JSON.stringify(datatype.slice(0, 50))}; exports: ${EXPORT_DATATYPES.join(', ')}`);
    const type = datatype as ExportDatatype;
    const query = request.query as Record<string, unknown>;
    const after = this.cursor(type, query);
    const withDeleted = includeDeleted(query);
    if (withDeleted && !EXPORT_WITH_DELETED.includes(type)) throw invalidRequest(`include_deleted is for ${EXPORT_WITH_DELETED.join(' and ')} only: deleted ${type} are never shown`);
    // The first page before the answer starts: a failure here is still an error envelope.
    const first = await this.exports.page(type, { after, limit: EXPORT_PAGE, includeDeleted: withDeleted });
    // The pages after it are read as the stream asks, outside the request's context: they keep its Min-Position themselves.
    const position = minPositionOf(request.headers[MIN_POSITION_HEADER]);
    const next = (from: string[]) => {
      const read = () => this.exports.page(type, { after: from, limit: EXPORT_PAGE, includeDeleted: withDeleted });
      return position === undefined ? read() : readingAfter(position, read);
    };
    const body = Readable.from(this.lines(first, next), { objectMode: false, highWaterMark: 64 * 1024 });
    reply.header('content-type', 'application/x-ndjson; charset=utf-8').header('vary', 'accept-encoding');
    if (!acceptsGzip(request.headers['accept-encoding'])) return void reply.send(body);
    reply.header('content-encoding', 'gzip');
    // Fastify destroys the gzip stream when the client goes; pipeline destroys the pages with it.
    return void reply.send(pipeline(body, createGzip({ level: GZIP_LEVEL }), () => undefined));
  }

  /**
   * The pages' lines, timestamps in the answers' form. The next page is read while this one is sent,
   * and only then: the stream pulls a page once the client has taken most of the one before
   * (backpressure), so an export holds two pages at most, whatever its size.
   */
  private async *lines(first: ExportPage, read: (after: string[]) => Promise<ExportPage>): AsyncGenerator<string> {
    let page = first;
    for (;;) {
      const next = page.count === EXPORT_PAGE && page.last ? read(page.last) : undefined;
      // Left unread when the client goes meanwhile: its failure must not be unhandled (awaited below, it fails the stream).
      next?.catch(() => undefined);
      if (page.count > 0) yield `${fixTimestampsInJson(page.lines)}\n`;
      if (!next) return;
      page = await next;
    }
  }

  /** `after` (and, for products, `after_language`) as the key of the line to go on after. */
  private cursor(datatype: ExportDatatype, query: Record<string, unknown>): ExportPageOptions['after'] {
    const { after, after_language: language } = query;
    if (Array.isArray(after) || Array.isArray(language)) throw invalidRequest('after and after_language are given once');
    const text = (name: string, value: unknown) => {
      if (typeof value !== 'string') return undefined;
      if (value.length > 1000 || value.includes('\0')) throw invalidRequest(`${name} is not the id of a line of this export`);
      return value;
    };
    const id = text('after', after) || undefined;
    const lang = text('after_language', language);
    if (lang !== undefined && datatype !== 'products') throw invalidRequest('after_language is for products only');
    if (lang && id === undefined) throw invalidRequest('after_language goes with after');
    if (id === undefined) return undefined;
    const [type] = this.exports.keyTypes(datatype);
    if (type === 'bigint' && !/^\d{1,15}$/.test(id)) throw invalidRequest(`after is the id of a line of this export: a whole number for ${datatype}`);
    return datatype === 'products' ? [id, lang ?? ''] : [id];
  }
}
