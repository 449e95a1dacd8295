import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { bootstrap } from '../domain/bootstrap.js';
import { type EventsStore, openEventsStore } from '../store/events/store.js';
import { type MetaStore, openMetaStore } from '../store/meta/db.js';
import { writeBootstrapFile } from './bootstrap-file.js';

export interface Stores {
  meta: MetaStore;
  events: EventsStore;
  close(): Promise<void>;
}

/** Opens and migrates both stores; if the second fails the first is closed again. */
export async function openStores(config: Config): Promise<Stores> {
  const meta = await openMetaStore(config);
  let events: EventsStore;
  try {
    events = await openEventsStore({
      dataDir: config.dataDir,
      clickhouseUrl: config.clickhouseUrl,
      database: config.clickhouseDatabase,
    });
  } catch (error) {
    await meta.close();
    throw error;
  }
  return {
    meta,
    events,
    async close() {
      await Promise.allSettled([meta.close(), events.close()]);
    },
  };
}

/** First start on an empty store creates the default organization and writes bootstrap.json. */
export async function bootstrapInstallation(config: Config, stores: Stores, log: Logger): Promise<void> {
  const result = await bootstrap(
    { meta: stores.meta.db, events: stores.events, now: () => new Date() },
    { adminEmail: config.adminEmail, adminApiKey: config.adminApiKey },
  );
  if (!result) return;
  const path = writeBootstrapFile(config.dataDir, result);
  log.info(
    { path, organization_id: result.organization_id, project_id: result.project_id },
    `first start: created the default organization, project and a full-access API key; see ${path}`,
  );
}
