import type { FastifyInstance } from 'fastify';

/**
 * Work that runs beside the HTTP server. Every loop is started once the server is ready (so a
 * failed start leaves no timer behind) and stopped after in-flight requests have finished, in the
 * order given: whatever a later loop flushes (the ingestion writer) may come from an earlier one.
 */
export interface BackgroundLoop {
  name: string;
  start?(): void | Promise<void>;
  stop(): Promise<void>;
}

export function installBackground(app: FastifyInstance, loops: BackgroundLoop[]): void {
  app.addHook('onReady', async () => {
    for (const loop of loops) await loop.start?.();
  });
  app.addHook('onClose', async () => {
    for (const loop of loops) {
      try {
        await loop.stop();
      } catch (err) {
        app.log.error({ err, loop: loop.name }, 'background loop failed to stop');
      }
    }
  });
}
