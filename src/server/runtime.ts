import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { bootstrap } from '../domain/organizations/bootstrap.js';
import { type EventsStore, type EventsStoreOptions, openEventsStore } from '../store/events/store.js';
import { type MetaStore, openMetaStore } from '../store/meta/db.js';
import { type Bus, memoryBus, redisBus } from '../store/shared/bus.js';
import { writeBootstrapFile } from './bootstrap-file.js';

export interface Stores {
  meta: MetaStore;
  events: EventsStore;
  bus: Bus;
  close(): Promise<void>;
}

/** How the config opens the events store (the server, and the CLI's `materialize`). */
export function eventsStoreOptions(config: Config): EventsStoreOptions {
  return {
    dataDir: config.dataDir,
    clickhouseUrl: config.clickhouseUrl,
    database: config.clickhouseDatabase,
    limits: {
      queryConcurrency: config.queryConcurrency,
      queryTeamShare: config.queryTeamShare,
      exportConcurrency: config.exportQueryConcurrency,
      writeConcurrency: config.ingestWriters,
      memoryLimitBytes: config.engineMemoryLimit,
      queryMaxThreads: config.queryMaxThreads,
      maxResultBytes: config.queryMaxResultBytes,
    },
    materializedPersonProperties: config.materializedPersonProperties,
  };
}

/** Opens and migrates both stores; if the second fails the first is closed again. */
export async function openStores(config: Config, log?: Logger): Promise<Stores> {
  // The events store first: once its chDB sessions exist it mostly waits for its migrations' DDL,
  // which chDB runs on its own threads, and the metadata store opens and migrates in that wait
  // (~0.1 s of a first start). The handler only keeps a failure for the `await` below.
  const opening = openEventsStore(eventsStoreOptions(config));
  opening.catch(() => {});
  let meta: MetaStore;
  try {
    meta = await openMetaStore({
      ...config,
      walCheckpoint: {
        onError: (error) => log?.error({ err: error }, 'metadata WAL checkpoint failed'),
      },
    });
  } catch (error) {
    await opening.then((events) => events.close()).catch(() => {});
    throw error;
  }
  let events: EventsStore | undefined;
  try {
    events = await opening;
    const bus = config.redisUrl ? await redisBus(config.redisUrl, config.redisKeyPrefix) : memoryBus();
    const opened = events;
    return {
      meta,
      events: opened,
      bus,
      async close() {
        await Promise.allSettled([meta.close(), opened.close(), bus.close()]);
      },
    };
  } catch (error) {
    await Promise.allSettled([meta.close(), events?.close()]);
    throw error;
  }
}

/** First start on an empty store creates the default organization and writes bootstrap.json. */
export async function bootstrapInstallation(config: Config, stores: Stores, log: Logger): Promise<void> {
  const result = await bootstrap(
    { meta: stores.meta.db, now: () => new Date() },
    { adminEmail: config.adminEmail, adminApiKey: config.adminApiKey },
  );
  if (!result) return;
  const path = writeBootstrapFile(config.dataDir, result);
  log.info(
    { path, organization_id: result.organization_id, project_id: result.project_id },
    `first start: created the default organization, project and a full-access API key; see ${path}`,
  );
  log.info(
    { console: `http://${config.host}:${config.port}/`, email: config.adminEmail },
    'the web console needs a password for this email: npm run burrow -- password',
  );
}
