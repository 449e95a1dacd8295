/**
 * Authenticated list endpoint vs a hello-world route on the same Fastify server, same run.
 * Usage: npm run bench:crud [-- --seconds 10 --connections 64]   (DATABASE_URL for PostgreSQL)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { PUBLIC } from '../src/domain/scopes.js';
import { buildApp } from '../src/server/app.js';
import { createLogger } from '../src/server/logger.js';
import { bootstrapInstallation, openStores } from '../src/server/runtime.js';
import { autocannon, table } from './lib.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '64' } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

const dataDir = mkdtempSync(join(tmpdir(), 'burrow-bench-crud-'));
const config = loadConfig({
  BURROW_DATA_DIR: dataDir,
  DATABASE_URL: process.env.DATABASE_URL,
  PORT: '0',
  LOG_LEVEL: 'silent',
});
const stores = await openStores(config);
await bootstrapInstallation(config, stores, createLogger('silent'));
const key = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).personal_api_key as string;
const app = await buildApp({ config, meta: stores.meta, events: stores.events, bus: stores.bus });
app.get('/_bench/hello', { config: { scope: PUBLIC } }, async () => ({ hello: 'world' }));
// A realistic list: a handful of keys for the user.
for (let i = 0; i < 5; i++) {
  await app.inject({
    method: 'POST',
    url: '/api/personal_api_keys/',
    headers: { authorization: `Bearer ${key}` },
    payload: { label: `bench ${i}`, scopes: ['query:read'] },
  });
}
const base = await app.listen({ host: '127.0.0.1', port: 0 });

const warm = { connections, seconds: 2 };
await autocannon(`${base}/_bench/hello`, warm);
await autocannon(`${base}/api/personal_api_keys/`, { ...warm, headers: { authorization: `Bearer ${key}` } });

const hello = await autocannon(`${base}/_bench/hello`, { connections, seconds });
const list = await autocannon(`${base}/api/personal_api_keys/`, {
  connections,
  seconds,
  headers: { authorization: `Bearer ${key}` },
});
const me = await autocannon(`${base}/api/users/@me/`, {
  connections,
  seconds,
  headers: { authorization: `Bearer ${key}` },
});

const row = (name: string, r: typeof hello) => ({
  route: name,
  'req/s': Math.round(r.rps),
  'p50 ms': r.p50,
  'p99 ms': r.p99,
  'ratio vs hello': r.rps / hello.rps,
  'errors+non2xx': r.errors + r.non2xx,
});
console.log(`metadata store: ${stores.meta.dialect}; ${connections} connections, ${seconds}s each\n`);
console.log(
  table([
    row('GET /_bench/hello (Fastify hello world)', hello),
    row('GET /api/personal_api_keys/', list),
    row('GET /api/users/@me/', me),
  ]),
);

await app.close();
await stores.close();
rmSync(dataDir, { recursive: true, force: true });
