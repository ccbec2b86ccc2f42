import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { NestFactory, Reflector } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { LogController } from 'fastify';
import { RecordTokenUseCommand } from '#mds/access';
import { DatabaseWatch, fixTimestampsInJson, redactUrl, timestampsInForm } from '#mds/platform';
import { IDEMPOTENT_REPLAY } from '#mds/imports';
import { ACCESS_CHANNEL, ACCESS_READ_MODEL, CAMPAIGNS_READ_MODEL, SETTINGS_CHANNEL, SETTINGS_READ_MODEL, type AccessReadModel, type CampaignsReadModel, type SettingsReadModel } from '#mds/projections';
import { ensureReadModelTables, type Runtime } from '#mds/runtime';
import { installAuthentication } from './access/authentication.hook';
import { PermissionsGuard } from './access/permissions.guard';
import { TokenResolver } from './access/token-resolver';
import { ApiModule, CONTEXT_MODULES, type ApiContextModules } from './api.module';
import type { ServiceMetrics } from './metrics/metrics';
import { installBodyBudget } from './platform/body-budget';
import { QueryParametersGuard } from './platform/query-parameters.guard';
import { ErrorEnvelopeFilter, sendError } from './platform/error-envelope';
import { installDatabaseGuard } from './platform/database-guard';
import { installJsonBody } from './platform/json-body';
import { completeContract } from './platform/openapi-contract';
import { clientErrorHandler, frameworkErrorHandler, installRequestLimits } from './platform/request-limits';
import { PinoNestLogger } from './platform/nest-logger';
import { installReadPosition } from './platform/read-position';
import { METRICS } from './platform/tokens';
import { RequestValidationPipe } from './platform/request-validation';

/** How long an API process may answer from settings it kept if a change's announcement were lost. */
const SETTINGS_KEEP_MS = 10_000;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP app on Fastify (not yet listening). */
export async function createApiApp(runtime: Runtime, contexts: ApiContextModules = CONTEXT_MODULES): Promise<NestFastifyApplication> {
  const { config } = runtime;
  const logger = runtime.logger.child({ component: 'api' });
  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    // Clients send the spec's paths with or without the trailing slash; a doubled slash is the same path.
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    loggerInstance: logger,
    // One structured line a request is written by the onResponse hook below (with the URL redacted).
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: 'x-request-id',
    // Requests Node's parser refuses (header floods, a broken request line) get the envelope too.
    clientErrorHandler: clientErrorHandler(config.requestTimeoutMs),
    // Headers and body must have arrived by then (Fastify's default, 0, lets a body trickle in for ever).
    requestTimeout: config.requestTimeoutMs,
    http: {
      // Node's own default (60 s), but never past the request timeout (Node insists on it).
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      // Node looks for requests past their time every 30 s by default: a cut would come up to 30 s late.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(config.requestTimeoutMs / 4))),
    },
    // The router's own errors (a path that is not UTF-8 once percent-decoded) in the envelope, not Fastify's body.
    frameworkErrors: frameworkErrorHandler((err, request, reply) => sendError(err, request, reply, config.bodyLimitBytes, logger)),
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  // Every read model the routes query exists before the first request, projector running or not.
  await ensureReadModelTables(runtime);
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(runtime, logger, contexts), adapter, {
    logger: new PinoNestLogger(logger),
    // JSON bodies are parsed by installJsonBody only.
    bodyParser: false,
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();

  installJsonBody(fastify);
  installRequestLimits(fastify);
  // Before authentication, whose token look-up would wait on a database that does not answer.
  const watch = new DatabaseWatch(runtime.databaseUrl, { logger });
  installDatabaseGuard(fastify, watch);
  watch.start();

  const commands = app.get(CommandBus);
  const metrics = app.get<ServiceMetrics>(METRICS);
  const resolver = TokenResolver.forReadModel(app.get<AccessReadModel>(ACCESS_READ_MODEL), config.rateLimitPerMinute, config.tokenCacheMs);
  runtime.notifications.on(ACCESS_CHANNEL, () => resolver.invalidate());
  runtime.notifications.on('reconnected', () => resolver.invalidate());
  // Data requests read the settings kept here, forgotten on every change (SettingsReadModel).
  const settings = app.get<SettingsReadModel>(SETTINGS_READ_MODEL);
  settings.keepFor(SETTINGS_KEEP_MS);
  runtime.notifications.on(SETTINGS_CHANNEL, () => settings.forget());
  runtime.notifications.on('reconnected', () => settings.forget());
  // Campaign list pages are kept until the campaigns projection announces a move (CampaignsReadModel).
  const campaigns = app.get<CampaignsReadModel>(CAMPAIGNS_READ_MODEL);
  campaigns.keepPagesFor(config.campaignPagesKeepMs);
  runtime.notifications.on('mds_checkpoints', (payload: string) => {
    if (payload.startsWith('campaigns:')) campaigns.moved(Number(payload.slice('campaigns:'.length)));
  });
  runtime.notifications.on('reconnected', () => campaigns.forget());
  installAuthentication(fastify, {
    resolver,
    recordUse: (use) => commands.execute(new RecordTokenUseCommand(use.tokenId, use.ownerId, use.lastUsedAt, use.requestId)),
    bodyLimit: config.bodyLimitBytes,
    logger,
  });
  app.useGlobalGuards(new PermissionsGuard(app.get(Reflector)), new QueryParametersGuard());
  // Request DTOs (class-validator): management bodies and query parameters; bulk records are checked by compiled schemas in the contexts.
  app.useGlobalPipes(new RequestValidationPipe());
  installReadPosition(fastify, config.bodyLimitBytes, logger);

  fastify.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // An import answered again for its Idempotency-Key: the first answer's bytes, and a header saying so.
  fastify.addHook('preSerialization', async (_request, reply, payload) => {
    if (payload !== null && typeof payload === 'object' && (payload as Record<symbol, unknown>)[IDEMPOTENT_REPLAY]) reply.header('idempotent-replayed', 'true');
    return payload;
  });
  // One form for every timestamp in an answer (platform/timestamps.ts). The audit trail shows the log's
  // events as they were recorded, so an auditor can check them against their signatures.
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').includes('json')) return payload;
    if (request.routeOptions?.url?.startsWith('/api/audit/') || timestampsInForm(reply)) return payload;
    return fixTimestampsInJson(payload);
  });
  // After authentication: only a client with a valid token can hold a share of the budget.
  metrics.watchBodyBudget(installBodyBudget(fastify, { budget: config.bodyMemoryBudgetBytes, bodyLimit: config.bodyLimitBytes }));
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    metrics.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    // Not built when it would not be written (LOG_LEVEL above info): redacting the URL is most of it.
    if (reply.statusCode < 500 && !logger.isLevelEnabled('info')) return;
    const line = { reqId: request.id, method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (reply.statusCode >= 500) logger.error(line, 'request');
    else logger.info(line, 'request');
  });
  // Nest installs Fastify's error handler and routes parser errors (bad JSON, 413, 415) through this filter too.
  app.useGlobalFilters(new ErrorEnvelopeFilter(config.bodyLimitBytes, logger));
  app.enableShutdownHooks([]);

  const document = completeContract(SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Marketing Data Service API')
      .setDescription(
        'Import customers, products, events and sales; read them back; campaign statistics; datatargets and webhook outlets. Every error answers `{"error": {"code", "message"}}`. ' +
          'Every route but /health, /api/docs and /api/audit/public-key needs an access token. Import records are read leniently (ids as strings or whole numbers, money as integer cents ' +
          'or a numeric string, booleans also as "true"/"1"/"yes", lists as arrays or comma-joined strings, text fields also as numbers, `null` as absent); their schemas give each field\'s forms and limits.',
      )
      .setVersion('1')
      .build(),
    // Each route names its tag (openapi-contract.ts orders them); none is made up from a controller's name.
    { autoTagControllers: false },
  ));
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/docs/openapi.json', yamlDocumentUrl: 'api/docs/openapi.yaml' });
  return app;
}
