import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { s3SymbolStorage } from '../adapters/s3-symbol-storage.js';
import { actionRoutes } from '../api/actions.js';
import { adminBackupRoutes } from '../api/admin-backup.js';
import { batchExportRoutes } from '../api/batch-exports.js';
import { captureRoutes } from '../api/capture.js';
import { consoleRoutes } from '../api/console.js';
import type { ApiOptions, ApiPlugin } from '../api/context.js';
import { dataRoutes } from '../api/data-routes.js';
import { earlyAccessRoutes } from '../api/early-access.js';
import { experimentExtrasRoutes } from '../api/experiment-extras.js';
import { experimentRoutes } from '../api/experiments.js';
import { featureFlagRoutes } from '../api/feature-flags.js';
import { flagSdkRoutes } from '../api/feature-flags-sdk.js';
import { healthRoutes } from '../api/health.js';
import { hogFunctionRoutes } from '../api/hog-functions.js';
import { orgAccessRoutes } from '../api/org-access.js';
import { organizationRoutes } from '../api/organizations.js';
import { personalApiKeyRoutes } from '../api/personal-api-keys.js';
import { projectRoutes } from '../api/projects.js';
import { queryRoutes } from '../api/query.js';
import { sessionRecordingRoutes } from '../api/recordings.js';
import { savedRoutes } from '../api/saved-routes.js';
import { staticRoutes } from '../api/static.js';
import { surveyRoutes } from '../api/surveys.js';
import { surveySdkRoutes } from '../api/surveys-sdk.js';
import { userRoutes } from '../api/users.js';
import type { Config } from '../config.js';
import { createAuthenticator } from '../domain/accounts/authenticate.js';
import { createScheduler } from '../domain/batch-exports/scheduler.js';
import { cohortLookup } from '../domain/cohorts/flag-lookup.js';
import {
  createDefinitionsCollector,
  type DefinitionsCollector,
  flushPeriodically,
} from '../domain/definitions/collector.js';
import type { Deps } from '../domain/deps.js';
import { createCapturePressure } from '../domain/destinations/capture-pressure.js';
import { createDeliveryMatcher } from '../domain/destinations/enqueue.js';
import { createLiquidPool } from '../domain/destinations/liquid-pool.js';
import { startLiveTeams } from '../domain/destinations/live-teams.js';
import { DEFAULT_MAX_ATTEMPTS, startDeliveryWorker } from '../domain/destinations/worker.js';
import { createExceptionStep } from '../domain/error-tracking/ingest-step.js';
import { localSymbolStorage, type SymbolStorage } from '../domain/error-tracking/symbol-storage.js';
import { createSymbolicator } from '../domain/error-tracking/symbolicate.js';
import { createFlagCache } from '../domain/flags/cache.js';
import type { CohortLookup } from '../domain/flags/cohorts.js';
import { createFlagEvaluator } from '../domain/flags/service.js';
import { geoipFiles, loadGeoip } from '../domain/geoip/database.js';
import { createGeoStep } from '../domain/geoip/enrich.js';
import { openJournalSink } from '../domain/ingest/journal-sink.js';
import { createIngestPipeline } from '../domain/ingest/pipeline.js';
import { createTeamResolver } from '../domain/ingest/teams.js';
import { type PlaylistCounter, startPlaylistCounter } from '../domain/recordings/counter-loop.js';
import { hasActiveSurveys } from '../domain/surveys/public.js';
import { createQueryRuntime } from '../execution/runtime.js';
import type { EventsStore } from '../store/events/store.js';
import { openCaptureJournal } from '../store/journal/capture-journal.js';
import type { MetaStore } from '../store/meta/db.js';
import { enqueueInvocations } from '../store/meta/hog-queue.js';
import type { TeamRecord } from '../store/meta/teams.js';
import { type Bus, memoryBus } from '../store/shared/bus.js';
import { installAuth } from './auth.js';
import { installBackground } from './background.js';
import { exportDeps } from './batch-exports.js';
import { installJsonOnly } from './content.js';
import { destinationSender } from './destinations.js';
import { installErrorHandling, type NotFoundPage } from './errors.js';
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
  /** Where flags read cohorts; without one a flag condition on a cohort reports an error. */
  cohorts?: CohortLookup;
  logger?: FastifyBaseLogger;
  now?: () => Date;
}

export type App = FastifyInstance;

declare module 'fastify' {
  interface FastifyInstance {
    /** The parsed configuration, for route plugins registered without it (draft_sql). */
    config: Config;
    /** Event and property definitions waiting to be written (tests flush it). */
    definitions: DefinitionsCollector;
    /** Where symbol sets live: the data directory, or the object storage bucket. */
    symbolStorage: SymbolStorage;
  }
}

/**
 * The `hops` nearest peers are proxies (hop 0 is the socket's peer): the client address is the
 * X-Forwarded-For entry `hops` from the right, whatever the client put further left.
 */
const trustHops = (hops: number) => (_address: string, hop: number) => hop < hops;

/** Assembles the HTTP server from already opened stores; the caller owns their lifecycle. */
export async function buildApp(options: AppOptions): Promise<App> {
  const { config } = options;
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // A hop count is a function here: Fastify refuses to trust anything for a bare number.
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
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
  const symbolStorage = config.objectStorage
    ? s3SymbolStorage(config.objectStorage, deps.now)
    : localSymbolStorage(config.dataDir);
  app.decorate('symbolStorage', symbolStorage);
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
  // The console fills this in when it registers, so unknown pages a browser opens show its Not found.
  const notFoundPage: NotFoundPage = {};
  installErrorHandling(app, { bodyLimit: config.bodyLimit, ignoreTrailingSlash: true, notFoundPage });
  installJsonOnly(app);
  installRouteContract(app);
  await registerOpenApi(app, VERSION);
  const orgAccess = await setupOrgAccess(app, deps, config);
  installAuth(app, deps, authenticator, orgAccess.sessions);

  // The background loops, created here and started/stopped together by installBackground.
  const query = await createQueryRuntime({
    config,
    events: options.events,
    bus,
    now: deps.now,
    onHiddenError: (err, { teamId, queryId }) =>
      app.log.error({ err: (err as Error)?.cause ?? err, teamId, queryId }, 'background query failed'),
    onWatermarkError: (err) => app.log.warn({ err }, 'writing an event watermark to Redis failed'),
  });
  // New events make cached results over ranges reaching the present stale, on every node.
  const eventsArrived = (teamId: number) => query.watermarks.bump(teamId, deps.now());
  const exportsDeps = exportDeps(config, deps);
  const scheduler = createScheduler(exportsDeps, app.log);
  let playlistCounter: PlaylistCounter | null = null;
  const counter = { nudge: () => playlistCounter?.nudge() };
  // Event and property definitions, collected as events are written and stored once a second.
  const definitions = createDefinitionsCollector(deps.meta, { now: deps.now });
  app.decorate('definitions', definitions);
  let stopDefinitions: (() => Promise<void>) | null = null;
  // Realtime destinations: events are matched once written, and sent by this node's workers.
  const sendToDestination = destinationSender(
    { allowPrivate: config.batchExports.allowPrivateNetworks, dnsServers: config.dnsServers },
    config.destinations.timeoutMs,
  );
  // Liquid inputs parse and render in worker threads (started on the first Liquid template).
  const liquid = createLiquidPool({
    size: config.destinations.liquidWorkers,
    queueLimit: config.destinations.liquidQueue,
  });
  let deliveryWorker: ReturnType<typeof startDeliveryWorker> | null = null;
  // Deliveries yield to capture while capture needs the event loop (capture-pressure.ts).
  const pressure = createCapturePressure();
  // Projects with destinations: their events are matched once in the journal, before the insert.
  let liveTeams: ReturnType<typeof startLiveTeams> | null = null;
  const matchDestinations = createDeliveryMatcher({
    meta: deps.meta,
    now: deps.now,
    siteUrl: config.siteUrl,
    queue: (jobs, now) =>
      deliveryWorker
        ? deliveryWorker.enqueue(jobs, now)
        : enqueueInvocations(deps.meta, jobs, now.toISOString()),
    onError: (err) => app.log.warn({ err }, "writing destinations' filtered / masked counts failed"),
  });
  // Capture's rows go to the node's journal first (docs/capture.md): what it holds from before a
  // crash is inserted here, before any route serves.
  const sink = config.captureJournal
    ? await openJournalSink(await openCaptureJournal(config.captureJournalDir), options.events, {
        maxRows: config.ingestBatchRows,
        maxDelayMs: config.captureJournalInsertDelayMs,
        idleDelayMs: config.captureJournalIdleInsertDelayMs,
        maxPendingRows: config.ingestMaxPendingRows,
        waitMs: config.captureJournalWaitMs,
        onError: (err, attempt) =>
          app.log.error({ err, attempt }, 'inserting from the capture journal failed; retrying'),
        // Other nodes do not wait for this journal: for them the rows arrive when inserted. A lone
        // node's reads wait for its journal, so the acknowledgement alone counts there.
        ...(query.watermarks.kind === 'redis' && {
          onInserted: (teamIds: number[]) => {
            for (const teamId of teamIds) eventsArrived(teamId);
          },
        }),
        afterInsert: matchDestinations,
        matchEarly: (teamId: number) => liveTeams?.has(teamId) === true,
        onReplay: (rows) =>
          app.log.info(
            { rows, dir: config.captureJournalDir },
            'capture journal: inserting rows from before the last stop',
          ),
      })
    : undefined;
  // Reads wait for what this node acknowledged (read-your-writes on this node).
  const removeBarrier = sink ? options.events.addReadBarrier(sink.barrier) : undefined;
  const geoFiles = geoipFiles(config.geoipDatabase);
  const geoip =
    geoFiles.length > 0
      ? createGeoStep(() =>
          loadGeoip(geoFiles).catch((err: unknown) => {
            app.log.error(
              { err, files: geoFiles },
              'GeoIP database could not be loaded: events get no $geoip_*',
            );
            return null;
          }),
        )
      : undefined;
  const pipeline = createIngestPipeline(
    {
      ...deps,
      definitions,
      sink,
      onRows: pressure.captured,
      onAcknowledged: eventsArrived,
      // Error tracking: exceptions grouped into issues, minified frames through uploaded source maps.
      exceptions: createExceptionStep({
        meta: deps.meta,
        now: deps.now,
        symbolicate: createSymbolicator({
          meta: deps.meta,
          storage: symbolStorage,
          now: deps.now,
        }),
      }),
      geoip,
      afterInsert: matchDestinations,
      // Shared person transactions: SQLite has one connection; the pool has 10, leave some free.
      personConcurrency: options.meta.dialect.name === 'postgres' ? 6 : 1,
      personGroupDelayMs: config.capturePersonGroupDelayMs,
    },
    {
      maxRows: config.ingestBatchRows,
      maxDelayMs: config.ingestBatchDelayMs,
      maxPendingRows: config.ingestMaxPendingRows,
      writers: config.ingestWriters,
    },
  );
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
    {
      name: 'destination projects',
      start: () => {
        liveTeams = startLiveTeams(deps.meta, {
          refreshMs: 1000,
          onError: (err) => app.log.warn({ err }, 'reading which projects have destinations failed'),
        });
      },
      stop: async () => liveTeams?.stop(),
    },
    {
      name: 'destination delivery',
      start: () => {
        if (!config.destinations.workers) return;
        const d = config.destinations;
        deliveryWorker = startDeliveryWorker(
          { meta: deps.meta, now: deps.now, send: sendToDestination, liquid },
          {
            owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
            pollMs: d.pollMs,
            leaseMs: d.leaseMs,
            perFunction: d.perFunction,
            total: d.total,
            maxAttempts: DEFAULT_MAX_ATTEMPTS,
            backoffMs: d.backoffMs,
            backoffMaxMs: d.backoffMaxMs,
            disableAfterMs: d.disableAfterMs,
            busy: pressure.busy,
            busyRate: d.busyRate,
            onError: (err) => app.log.error({ err }, 'destination delivery failed'),
            onActionLog: ({ level, message, ...where }) =>
              app.log[level === 'ERROR' ? 'error' : level === 'WARN' ? 'warn' : 'info'](where, message),
          },
        );
      },
      stop: async () => {
        pressure.stop();
        await deliveryWorker?.stop();
      },
    },
    // After delivery has stopped: nothing renders any more.
    { name: 'liquid renderer', stop: () => liquid.close() },
    // Queries still running in the background are abandoned with the node.
    { name: 'query runtime', stop: () => query.close() },
    // Whatever in-flight requests queued is written before the stores close...
    {
      name: 'ingestion writer',
      stop: async () => {
        try {
          await pipeline.close();
        } finally {
          removeBarrier?.();
          // The journal has matched its last events: their counts go in before the stores close.
          await matchDestinations.flush();
        }
      },
    },
    // ...and last, the definitions those writes collected.
    {
      name: 'definitions writer',
      start: () => {
        stopDefinitions = flushPeriodically(definitions, 1000, (err) =>
          app.log.error({ err }, 'writing event and property definitions failed'),
        );
      },
      stop: async () => stopDefinitions?.(),
    },
  ]);

  // Every route plugin, in one place.
  const api: ApiOptions = { deps, authenticator, probes, bus };
  const resolveTeam = createTeamResolver(deps.meta, 60_000, bus);
  const flags = createFlagCache(deps.meta, bus, {
    onError: (err) => app.log.error({ err }, 'flag cache bus failed'),
  });
  const cohorts = options.cohorts ?? cohortLookup(deps);
  const plugins: Array<[ApiPlugin<never>, object]> = [
    [healthRoutes, api],
    [
      adminBackupRoutes,
      {
        ...api,
        dataDir: config.dataDir,
        journalDir: config.captureJournalDir,
        embedded: !config.databaseUrl && !config.clickhouseUrl,
      },
    ],
    [userRoutes, api],
    [organizationRoutes, api],
    [projectRoutes, api],
    [personalApiKeyRoutes, api],
    [actionRoutes, api],
    [orgAccessRoutes, { ...api, ...orgAccess.options }],
    [sessionRecordingRoutes, { ...api, config, counter }],
    [queryRoutes, { ...api, query }],
    [savedRoutes, { ...api, query, counters: orgAccess.options.counters }],
    [batchExportRoutes, { ...api, exports: exportsDeps }],
    [
      hogFunctionRoutes,
      {
        ...api,
        send: sendToDestination,
        siteUrl: config.siteUrl,
        liquid,
      },
    ],
    [
      captureRoutes,
      {
        ...api,
        pipeline,
        resolveTeam,
        limits: {
          maxDecodedBytes: config.captureMaxDecodedBytes,
          maxEvents: config.captureMaxEvents,
          maxDepth: config.captureMaxJsonDepth,
          maxEventBytes: config.captureMaxEventBytes,
          maxRecordingEventBytes: config.captureMaxRecordingEventBytes,
          concurrency: config.captureConcurrency,
        },
      },
    ],
    [featureFlagRoutes, { ...api, flags }],
    [experimentRoutes, { ...api, flags }],
    [experimentExtrasRoutes, { ...api, flags }],
    [surveyRoutes, { ...api, flags }],
    [surveySdkRoutes, { ...api, flags, resolveTeam }],
    [earlyAccessRoutes, { ...api, flags, resolveTeam }],
    [
      flagSdkRoutes,
      {
        ...api,
        flags,
        cohorts,
        resolveTeam,
        evaluate: createFlagEvaluator(deps, flags, cohorts, { personCacheMs: config.flagsPersonCacheMs }),
      },
    ],
    [
      staticRoutes,
      {
        ...api,
        resolveTeam,
        configState: async (team: TeamRecord) => ({
          hasFeatureFlags: (await flags.get(team.id)).active.length > 0,
          hasActiveSurveys: await hasActiveSurveys(deps, team),
        }),
      },
    ],
    [consoleRoutes, { ...api, notFoundPage }],
  ];
  for (const [plugin, pluginOptions] of plugins) await app.register(plugin, pluginOptions as never);
  // Persons, events, definitions, groups and cohorts (with the cohort calculator's loop).
  await dataRoutes(app, { api, bus, pipeline });
  return app;
}
