import './threadpool.js';
import { existsSync, rmSync } from 'node:fs';
import { ConfigError, loadConfig } from './config.js';
import { buildApp } from './server/app.js';
import { createLogger } from './server/logger.js';
import { assertCanListen, StartupError } from './server/port-check.js';
import { bootstrapInstallation, openStores } from './server/runtime.js';
import { NewerDataError } from './store/shared/newer-data.js';

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
  // Before anything is written: a start that cannot listen must not leave a data directory or a key.
  await assertCanListen(config.host, config.port);
  const dataDirExisted = existsSync(config.dataDir);
  const stores = await openStores(config, log);
  await bootstrapInstallation(config, stores, log);
  const app = await buildApp({
    config,
    meta: stores.meta,
    events: stores.events,
    bus: stores.bus,
    logger: log,
  });
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // Lost a race for the port after the probe: undo what this start created.
    await app.close().catch(() => {});
    await stores.close().catch(() => {});
    if (!dataDirExisted) rmSync(config.dataDir, { recursive: true, force: true });
    throw error;
  }
  log.info(
    {
      url: address,
      metadata: stores.meta.dialect.name,
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
  if (error instanceof StartupError || error instanceof NewerDataError) {
    process.stderr.write(`burrow: cannot start: ${error.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`burrow: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
