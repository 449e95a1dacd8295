/**
 * Authenticated list endpoint vs a hello-world route on the same Fastify server, same run.
 * Usage: npm run bench:crud [-- --seconds 5 --connections 64 --rounds 3]   (DATABASE_URL for PostgreSQL)
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
import { autocannon, type LoadResult, median, table } from './lib.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '3' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

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
const base = await app.listen({ host: '127.0.0.1', port: 0 });

const auth = { authorization: `Bearer ${key}` };
const warm = { connections, seconds: 2 };
await autocannon(`${base}/_bench/hello`, warm);
await autocannon(`${base}/api/personal_api_keys/`, { ...warm, headers: auth });

// Several interleaved rounds, medians reported: this VM's throughput drifts by tens of percent
// between minutes, and interleaving keeps each ratio's two sides in the same conditions.
const routes = {
  hello: '/_bench/hello',
  listOne: '/api/personal_api_keys/',
  listSix: '/api/personal_api_keys/',
  project: '/api/projects/@current/',
  me: '/api/users/@me/',
} as const;
type Name = keyof typeof routes;
const samples: Record<Name, LoadResult[]> = { hello: [], listOne: [], listSix: [], project: [], me: [] };
async function round(names: Name[]) {
  for (const name of names) {
    samples[name].push(await autocannon(`${base}${routes[name]}`, { connections, seconds, headers: auth }));
  }
}
// A fresh installation: the user has the one bootstrap key.
for (let i = 0; i < rounds; i++) await round(['hello', 'listOne']);
for (let i = 0; i < 5; i++) {
  await app.inject({
    method: 'POST',
    url: '/api/personal_api_keys/',
    headers: auth,
    payload: { label: `bench ${i}`, scopes: ['query:read'] },
  });
}
for (let i = 0; i < rounds; i++) await round(['hello', 'listSix', 'project', 'me']);
const summary = (name: Name): LoadResult => ({
  rps: median(samples[name].map((r) => r.rps)),
  p50: median(samples[name].map((r) => r.p50)),
  p99: median(samples[name].map((r) => r.p99)),
  errors: samples[name].reduce((n, r) => n + r.errors, 0),
  non2xx: samples[name].reduce((n, r) => n + r.non2xx, 0),
});
const hello = summary('hello');

const row = (name: string, r: LoadResult) => ({
  route: name,
  'req/s': Math.round(r.rps),
  'p50 ms': r.p50,
  'p99 ms': r.p99,
  'ratio vs hello': r.rps / hello.rps,
  'errors+non2xx': r.errors + r.non2xx,
});
console.log(
  `metadata store: ${stores.meta.dialect.name}; ${connections} connections, ${seconds}s per run, median of ${rounds} interleaved rounds\n`,
);
console.log(
  table([
    row('GET /_bench/hello (Fastify hello world)', hello),
    row('GET /api/personal_api_keys/ (1 key)', summary('listOne')),
    row('GET /api/personal_api_keys/ (6 keys)', summary('listSix')),
    row('GET /api/projects/@current/ (3 lookups)', summary('project')),
    row('GET /api/users/@me/', summary('me')),
  ]),
);

await app.close();
await stores.close();
rmSync(dataDir, { recursive: true, force: true });
