import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { actionRoutes } from '../api/actions.js';
import { batchExportRoutes } from '../api/batch-exports.js';
import { captureRoutes } from '../api/capture.js';
import type { ApiOptions, ApiPlugin } from '../api/context.js';
import { healthRoutes } from '../api/health.js';
import { orgAccessRoutes } from '../api/org-access.js';
import { organizationRoutes } from '../api/organizations.js';
import { personalApiKeyRoutes } from '../api/personal-api-keys.js';
import { projectRoutes } from '../api/projects.js';
import { queryRoutes } from '../api/query.js';
import { sessionRecordingRoutes } from '../api/recordings.js';
import { userRoutes } from '../api/users.js';
import type { Config } from '../config.js';
import { createAuthenticator } from '../domain/accounts/authenticate.js';
import { createScheduler } from '../domain/batch-exports/scheduler.js';
import type { Deps } from '../domain/deps.js';
import { createIngestPipeline } from '../domain/ingest/pipeline.js';
import { createTeamResolver } from '../domain/ingest/teams.js';
import { type PlaylistCounter, startPlaylistCounter } from '../domain/recordings/counter-loop.js';
import { createQueryRuntime } from '../execution/runtime.js';
import type { EventsStore } from '../store/events/store.js';
import type { MetaStore } from '../store/meta/db.js';
import { type Bus, memoryBus } from '../store/shared/bus.js';
import { installAuth } from './auth.js';
import { installBackground } from './background.js';
import { exportDeps } from './batch-exports.js';
import { installJsonOnly } from './content.js';
import { installErrorHandling } from './errors.js';
import { installRouteContract, registerOpenApi } from './openapi.js';
import { setupOrgAccess } from './org-access.js';
import { serializerCompiler } from './serialization.js';
import { validatorCompiler } from './validation.js';
import { VERSION } from './version.js';

export interface AppOptions {
  config: Config;
  meta: MetaStore;
  events: EventsStore;
  /** Cross-node messages; defaults to this process only. */
  bus?: Bus;
  logger?: FastifyBaseLogger;
  now?: () => Date;
}

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** The parsed configuration, for route plugins registered without it (draft_sql). */
    config: Config;
  }
}

/** Assembles the HTTP server from already opened stores; the caller owns their lifecycle. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 500 },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  const deps: Deps = {
    meta: options.meta.db,
    events: options.events,
    now: options.now ?? (() => new Date()),
  };
  app.decorate('config', config);
  const bus = options.bus ?? memoryBus();
  const authenticator = createAuthenticator(deps, {
    ttlMs: config.authCacheTtlMs,
    bus,
    onError: (err) => app.log.error({ err }, 'auth cache invalidation failed'),
  });
  const probes: ApiOptions['probes'] = {
    metadata: () => options.meta.ping(),
    events: () => options.events.ping(),
  };
  if (bus.kind === 'redis') probes.redis = () => bus.ping();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app, { bodyLimit: config.bodyLimit, ignoreTrailingSlash: true });
  installJsonOnly(app);
  installRouteContract(app);
  await registerOpenApi(app, VERSION);
  const orgAccess = await setupOrgAccess(app, deps, config);
  installAuth(app, deps, authenticator, orgAccess.sessions);

  // The background loops, created here and started/stopped together by installBackground.
  const query = await createQueryRuntime({ config, events: options.events, bus, now: deps.now });
  const exportsDeps = exportDeps(config, options.meta.dialect, deps);
  const scheduler = createScheduler(exportsDeps, app.log);
  let playlistCounter: PlaylistCounter | null = null;
  const counter = { nudge: () => playlistCounter?.nudge() };
  const pipeline = createIngestPipeline(deps, {
    maxRows: config.ingestBatchRows,
    maxDelayMs: config.ingestBatchDelayMs,
    maxPendingRows: config.ingestMaxPendingRows,
  });
  installBackground(app, [
    {
      name: 'batch export scheduler',
      start: () => {
        if (config.batchExports.scheduler) scheduler.start();
      },
      stop: () => scheduler.stop(),
    },
    {
      name: 'playlist counter',
      start: () => {
        playlistCounter = startPlaylistCounter(deps, {
          intervalMs: config.playlistCountIntervalMs,
          maxAgeMs: config.playlistCountMaxAgeMs,
          batch: 50,
          onError: (err, playlist) =>
            app.log.warn({ err, playlist: playlist.shortId }, 'playlist count failed'),
          onPassError: (err) => app.log.error({ err }, 'playlist counter pass failed'),
        });
      },
      stop: async () => playlistCounter?.stop(),
    },
    // Queries still running in the background are abandoned with the node.
    { name: 'query runtime', stop: () => query.close() },
    // Last: whatever in-flight requests queued is written before the stores close.
    { name: 'ingestion writer', stop: () => pipeline.close() },
  ]);

  // Every route plugin, in one place.
  const api: ApiOptions = { deps, authenticator, probes };
  const plugins: Array<[ApiPlugin<never>, object]> = [
    [healthRoutes, api],
    [userRoutes, api],
    [organizationRoutes, api],
    [projectRoutes, api],
    [personalApiKeyRoutes, api],
    [actionRoutes, api],
    [orgAccessRoutes, { ...api, ...orgAccess.options }],
    [sessionRecordingRoutes, { ...api, config, counter }],
    [queryRoutes, { ...api, query }],
    [batchExportRoutes, { ...api, exports: exportsDeps }],
    [captureRoutes, { ...api, pipeline, resolveTeam: createTeamResolver(deps.meta, 60_000) }],
  ];
  for (const [plugin, pluginOptions] of plugins) await app.register(plugin, pluginOptions as never);
  return app;
}
