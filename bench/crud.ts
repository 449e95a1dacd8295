/**
 * Authenticated list endpoint vs a hello-world route on the same Fastify server, same run.
 * Usage: npm run bench:crud [-- --seconds 5 --connections 64 --rounds 3]   (DATABASE_URL for PostgreSQL)
 */
import {
  autocannon,
  benchServer,
  HELLO_PATH,
  type LoadResult,
  loadHeader,
  loadOptions,
  medianOf,
  reporter,
  rowAgainst,
  table,
} from './lib.js';

const options = loadOptions();
const { seconds, connections, rounds } = options;
const { app, stores, base, auth, close } = await benchServer('crud');

const warm = { connections, seconds: 2 };
await autocannon(`${base}${HELLO_PATH}`, warm);
await autocannon(`${base}/api/personal_api_keys/`, { ...warm, headers: auth });

// Several interleaved rounds, medians reported: this VM's throughput drifts by tens of percent
// between minutes, and interleaving keeps each ratio's two sides in the same conditions.
const routes = {
  hello: HELLO_PATH,
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
const summary = (name: Name) => medianOf(samples[name]);
const hello = summary('hello');
const row = rowAgainst(hello);
console.log(loadHeader(stores.meta.dialect.name, options));
console.log(
  table([
    row('GET /_bench/hello (Fastify hello world)', hello),
    row('GET /api/personal_api_keys/ (1 key)', summary('listOne')),
    row('GET /api/personal_api_keys/ (6 keys)', summary('listSix')),
    row('GET /api/projects/@current/ (3 lookups)', summary('project')),
    row('GET /api/users/@me/', summary('me')),
  ]),
);

const report = reporter('crud');
const cases: Array<[Name, string]> = [
  ['hello', 'GET /_bench/hello (Fastify hello world)'],
  ['listOne', 'GET /api/personal_api_keys/ (1 key)'],
  ['listSix', 'GET /api/personal_api_keys/ (6 keys)'],
  ['project', 'GET /api/projects/@current/ (3 lookups)'],
  ['me', 'GET /api/users/@me/'],
];
for (const [name, label] of cases) {
  const r = summary(name);
  const against = 'GET /_bench/hello';
  const one = name === 'listOne';
  report({
    case: label,
    metric: 'req/s',
    value: r.rps,
    unit: 'req/s',
    ratio: r.rps / hello.rps,
    against,
    ...(one && { goal: { op: '>=', value: 0.5, issue: 2, on: 'ratio' } }),
  });
  report({
    case: label,
    metric: 'p99',
    value: r.p99,
    unit: 'ms',
    ...(one && { goal: { op: '<', value: 10, issue: 2 } }),
  });
}

await close();
