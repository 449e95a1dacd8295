import './threadpool.js';
import { ConfigError, loadConfig } from './config.js';
import { buildApp } from './server/app.js';
import { createLogger } from './server/logger.js';
import { bootstrapInstallation, openStores } from './server/runtime.js';

async function main(): Promise<void> {
  const started = performance.now();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`burrow: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.logLevel);
  const stores = await openStores(config);
  await bootstrapInstallation(config, stores, log);
  const app = await buildApp({
    config,
    meta: stores.meta,
    events: stores.events,
    bus: stores.bus,
    logger: log,
  });
  const address = await app.listen({ host: config.host, port: config.port });
  log.info(
    {
      url: address,
      metadata: stores.meta.dialect,
      events: stores.events.backend,
      data_dir: config.dataDir,
      startup_ms: Math.round(performance.now() - started),
      rss_mb: Math.round(process.memoryUsage().rss / 1e6),
    },
    'burrow ready',
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    try {
      await app.close();
      await stores.close();
      log.info('stopped');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`burrow: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
