import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchema, freshSchema } from './harness.js';
import { runTs, type Spawned } from './process.js';

export const ADMIN_KEY = 'phx_exportchildkey0123456789abcdef';

/** A Burrow server in a child process (its own chDB), with its scheduler on and quick to poll. */
export async function exportingServer(extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-exporter-'));
  const schema = await freshSchema();
  const env = {
    BURROW_DATA_DIR: dataDir,
    PORT: '0',
    DATABASE_URL: process.env.DATABASE_URL,
    DATABASE_SCHEMA: schema,
    REDIS_URL: process.env.REDIS_URL,
    BURROW_ADMIN_API_KEY: ADMIN_KEY,
    BURROW_SECRET_KEY: 'an-export-test-secret-key-of-enough-length',
    BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
    BATCH_EXPORTS_POLL_MS: '100',
    BATCH_EXPORTS_SETTLE_MS: '0',
    LOG_LEVEL: 'warn',
    ...extra,
  };
  let server: Spawned | undefined;
  let url = '';
  const start = async (more: Record<string, string> = {}) => {
    server = runTs('src/main.ts', [], { ...env, LOG_LEVEL: 'info', ...more });
    url = JSON.parse(await server.waitFor(/burrow ready/, 60_000)).url as string;
    return server;
  };
  await start();
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    boot,
    get url() {
      return url;
    },
    get server() {
      return server!;
    },
    start,
    api,
    /** Sends `n` events through capture, in batches; returns their uuids. */
    async capture(n: number, batch = 1000): Promise<string[]> {
      const uuids: string[] = [];
      for (let i = 0; i < n; i += batch) {
        const events = Array.from({ length: Math.min(batch, n - i) }, (_, j) => ({
          event: 'exported',
          distinct_id: `user-${(i + j) % 50}`,
          uuid: randomUUID(),
          properties: { n: i + j, $browser: 'Firefox' },
        }));
        const res = await fetch(`${url}/batch/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: boot.project_api_key, batch: events }),
        });
        if (res.status !== 200) throw new Error(`capture answered ${res.status}: ${await res.text()}`);
        uuids.push(...events.map((e) => e.uuid));
      }
      return uuids;
    },
    async close() {
      if (server && server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      if (schema) await dropSchema(schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type ExportingServer = Awaited<ReturnType<typeof exportingServer>>;

export async function waitUntil<T>(
  what: string,
  fn: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
