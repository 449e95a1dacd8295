/**
 * `/flags?v=2` for a project with 50 flags against a Fastify hello-world route on the same server,
 * same run; then the local evaluation definitions of a project with 1 000 flags, cold and cached.
 * Usage: npm run bench:flags [-- --seconds 5 --connections 64 --rounds 3]   (DATABASE_URL for PostgreSQL)
 * The server runs in this process and autocannon in its own, so `process.cpuUsage()` around each
 * run is the server's CPU per request: the figure that a shared machine disturbs least.
 * `--only flags` loads `/flags` alone (for `node --cpu-prof --import tsx bench/flags.ts --only flags`);
 * `--only newUsers` / `--only static` one case alone; `--only inject` the routes in process.
 */
import { newUuid } from '../src/domain/ids.js';
import { PUBLIC } from '../src/domain/scopes.js';
import { insertFeatureFlag } from '../src/store/meta/feature-flags.js';
import { insertDistinctId, insertPerson } from '../src/store/meta/persons.js';
import {
  autocannon,
  benchServer,
  HELLO_PATH,
  type LoadResult,
  loadHeader,
  loadOptions,
  median,
  reporter,
  table,
} from './lib.js';

const options = loadOptions();
const { seconds, connections, rounds, only } = options;
let staticAnswer = '';
const { app, stores, boot, base, auth, close } = await benchServer('flags', (server) => {
  // The same answer bytes as /flags, precomputed: the floor of sending them at all.
  server.post('/_bench/static', { config: { scope: PUBLIC } }, async (_r, reply) =>
    reply.type('application/json; charset=utf-8').send(staticAnswer),
  );
});

// 50 flags: half with person-property conditions, ten multivariate, the rest plain rollouts.
const ops = [
  { key: 'plan', operator: 'exact', value: ['pro', 'enterprise'] },
  { key: 'email', operator: 'icontains', value: '@acme.com' },
  { key: 'age', operator: 'gt', value: '21' },
  { key: 'country', operator: 'is_not', value: 'FR' },
  { key: 'app_version', operator: 'semver_gte', value: '1.2.0' },
  { key: 'email', operator: 'regex', value: '^[a-z]+@' },
];
for (let i = 0; i < 50; i++) {
  const multivariate = i % 5 === 0;
  const properties = i % 2 === 0 ? [{ ...ops[i % ops.length], type: 'person' }] : [];
  const res = await app.inject({
    method: 'POST',
    url: `/api/projects/${boot.project_id}/feature_flags/`,
    headers: auth,
    payload: {
      key: `bench-flag-${i}`,
      filters: {
        groups: [
          { properties, rollout_percentage: 30 + (i % 70) },
          { properties: [], rollout_percentage: 5 },
        ],
        ...(multivariate
          ? {
              multivariate: {
                variants: [
                  { key: 'control', rollout_percentage: 50 },
                  { key: 'test', rollout_percentage: 50 },
                ],
              },
              payloads: { test: '{"x":1}' },
            }
          : {}),
      },
    },
  });
  if (res.statusCode !== 201) throw new Error(res.body);
}
const personId = newUuid();
const now = new Date().toISOString();
await insertPerson(stores.meta.db, {
  id: personId,
  teamId: boot.project_id,
  properties: { plan: 'pro', email: 'ann@acme.com', age: 33, country: 'DE', app_version: '1.4.0' },
  isIdentified: true,
  version: 0,
  createdAt: now,
});
await insertDistinctId(stores.meta.db, boot.project_id, { distinctId: 'bench-user', personId, version: 0 });
const flagsBody = JSON.stringify({
  token: boot.project_api_key,
  distinct_id: 'bench-user',
  person_properties: { $browser: 'Chrome' },
});
const check = (await (
  await fetch(`${base}/flags/?v=2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: flagsBody,
  })
).json()) as { flags: Record<string, unknown> };
if (Object.keys(check.flags).length !== 50) throw new Error('expected 50 flags in the answer');

staticAnswer = JSON.stringify(check);
const post = { method: 'POST' as const, body: flagsBody, headers: { 'content-type': 'application/json' } };
const newUsersBody = JSON.stringify({
  token: boot.project_api_key,
  distinct_id: 'new-[<id>]',
  person_properties: { $browser: 'Chrome' },
});
if (only === 'inject') {
  // In process (light-my-request, no sockets): CPU per request of the routes, interleaved, as
  // extra CPU over the floor. `--rounds` rounds of `--seconds` × 1000 requests per case. On a
  // loaded machine it was no steadier than the HTTP figures (docs/benchmarks-history.md).
  const n = seconds * 1000;
  let id = 0;
  const once = (url: string, payload: string) =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
  const all: Record<string, () => Promise<unknown>> = {
    static: () => once('/_bench/static', flagsBody),
    flags: () => once('/flags/?v=2', flagsBody),
    newUsers: () => once('/flags/?v=2', newUsersBody.replace('[<id>]', `inj-${id++}`)),
  };
  // INJECT_CASE=newUsers (say) runs one case alone, for a profile.
  const pick = process.env.INJECT_CASE;
  const cases = pick ? { [pick]: all[pick] as () => Promise<unknown> } : all;
  const cpu: Record<string, number[]> = { static: [], flags: [], newUsers: [] };
  for (let round = 0; round <= rounds; round++)
    for (const [name, run] of Object.entries(cases)) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < n; i++) await run();
      const c = process.cpuUsage(c0);
      if (round > 0) cpu[name]?.push((c.user + c.system) / n);
    }
  const m = (name: string) => median(cpu[name] ?? []);
  console.log(
    `inject CPU µs/req (median of ${rounds}): static ${m('static').toFixed(1)}, flags ${m('flags').toFixed(1)} (+${(m('flags') - m('static')).toFixed(1)}), newUsers ${m('newUsers').toFixed(1)} (+${(m('newUsers') - m('static')).toFixed(1)})`,
  );
  await close();
  process.exit(0);
}
type Name = 'hello' | 'static' | 'flags' | 'newUsers';
interface Sample extends LoadResult {
  cpuUs: number;
  sysUs: number;
}
const targets: Record<Name, () => Promise<LoadResult>> = {
  hello: () => autocannon(`${base}${HELLO_PATH}`, { connections, seconds }),
  static: () => autocannon(`${base}/_bench/static`, { connections, seconds, ...post }),
  flags: () => autocannon(`${base}/flags/?v=2`, { connections, seconds, ...post }),
  newUsers: () =>
    autocannon(`${base}/flags/?v=2`, {
      connections,
      seconds,
      ...post,
      body: newUsersBody,
      idReplacement: true,
    }),
};
const load = async (name: Name): Promise<Sample> => {
  const cpu0 = process.cpuUsage();
  const r = await targets[name]();
  const cpu = process.cpuUsage(cpu0);
  const n = Math.max(1, r.requests ?? 1);
  return { ...r, cpuUs: (cpu.user + cpu.system) / n, sysUs: cpu.system / n };
};
const names: Name[] =
  only === 'flags' || only === 'newUsers' || only === 'hello' || only === 'static'
    ? [only]
    : ['hello', 'static', 'flags', 'newUsers'];
for (const name of names) await load(name);
const samples: Record<Name, Sample[]> = { hello: [], static: [], flags: [], newUsers: [] };
for (let i = 0; i < rounds; i++) for (const name of names) samples[name].push(await load(name));
const summary = (name: Name) => ({
  rps: median(samples[name].map((r) => r.rps)),
  p50: median(samples[name].map((r) => r.p50)),
  p99: median(samples[name].map((r) => r.p99)),
  cpuUs: median(samples[name].map((r) => r.cpuUs)),
  sysUs: median(samples[name].map((r) => r.sysUs)),
  errors: samples[name].reduce((n, r) => n + r.errors, 0),
  non2xx: samples[name].reduce((n, r) => n + r.non2xx, 0),
});
const hello = names.includes('hello') ? summary('hello') : null;
const row = (name: string, r: ReturnType<typeof summary>) => ({
  route: name,
  'req/s': Math.round(r.rps),
  'p50 ms': r.p50,
  'p99 ms': r.p99,
  'ratio vs hello': hello ? r.rps / hello.rps : Number.NaN,
  'server CPU µs/req': r.cpuUs,
  'of which kernel': r.sysUs,
  'CPU ratio (hello/route)': hello ? hello.cpuUs / r.cpuUs : Number.NaN,
  'errors+non2xx': r.errors + r.non2xx,
});
console.log(loadHeader(stores.meta.dialect.name, options));
console.log(
  table([
    ...(hello ? [row('GET /_bench/hello (Fastify hello world)', hello)] : []),
    ...(names.includes('static')
      ? [row('POST /_bench/static (the same answer bytes, precomputed: the floor)', summary('static'))]
      : []),
    ...(names.includes('flags') ? [row('POST /flags/?v=2 (50 flags, stored person)', summary('flags'))] : []),
    ...(names.includes('newUsers')
      ? [row('POST /flags/?v=2 (50 flags, a new distinct id per request)', summary('newUsers'))]
      : []),
  ]),
);
const report = reporter('flags');
const floor = names.includes('static') ? summary('static') : null;
const labels: Record<Name, string> = {
  hello: 'GET /_bench/hello (Fastify hello world)',
  static: 'POST /_bench/static (the same answer bytes, precomputed: the floor)',
  flags: 'POST /flags/?v=2 (50 flags, stored person)',
  newUsers: 'POST /flags/?v=2 (50 flags, a new distinct id per request)',
};
for (const name of names) {
  const r = summary(name);
  const isFlags = name === 'flags' || name === 'newUsers';
  report({
    case: labels[name],
    metric: 'req/s',
    value: r.rps,
    unit: 'req/s',
    ...(hello && { ratio: r.rps / hello.rps, against: labels.hello }),
  });
  report({
    case: labels[name],
    metric: `p99 at ${connections} connections`,
    value: r.p99,
    unit: 'ms',
    ...(isFlags && connections === 16 && { goal: { op: '<', value: 10, issue: 39 } }),
  });
  report({
    case: labels[name],
    metric: 'server CPU per request',
    value: r.cpuUs,
    unit: 'µs',
    ...(floor && isFlags && { ratio: r.cpuUs / floor.cpuUs, against: labels.static }),
    ...(floor &&
      isFlags && { goal: { op: '<=', value: name === 'flags' ? 1.3 : 1.6, issue: 39, on: 'ratio' } }),
  });
}
if (only) {
  await close();
  process.exit(0);
}

// 1 000 flags in a second project, read through the local evaluation endpoint with the secret key.
const org = await app.inject({ method: 'GET', url: '/api/users/@me/', headers: auth });
const orgId = org.json().organization.id as string;
const project = (
  await app.inject({
    method: 'POST',
    url: `/api/organizations/${orgId}/projects/`,
    headers: auth,
    payload: { name: 'Many flags' },
  })
).json();
for (let i = 0; i < 1000; i++) {
  await insertFeatureFlag(stores.meta.db, {
    teamId: project.id,
    key: `many-${i}`,
    name: '',
    filters: {
      groups: [{ properties: [{ ...ops[i % ops.length], type: 'person' }], rollout_percentage: i % 100 }],
      multivariate:
        i % 4 === 0
          ? {
              variants: [
                { key: 'a', rollout_percentage: 50 },
                { key: 'b', rollout_percentage: 50 },
              ],
            }
          : null,
      payloads: {},
    },
    active: true,
    deleted: false,
    ensureExperienceContinuity: false,
    evaluationRuntime: 'all',
    tags: [],
    version: 1,
    createdAt: now,
    createdBy: null,
    updatedAt: now,
    lastModifiedBy: null,
  });
}
const secret = (
  await app.inject({ method: 'POST', url: `/api/projects/${project.id}/rotate_secret_token/`, headers: auth })
).json().secret_api_token as string;
const url = `${base}/flags/definitions?token=${project.api_token}&send_cohorts`;
const timed = async () => {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${secret}` } });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${res.status} ${text}`);
  return { ms, bytes: text.length, flags: (JSON.parse(text) as { flags: unknown[] }).flags.length };
};
const cold = await timed();
const warmRuns: number[] = [];
for (let i = 0; i < 30; i++) warmRuns.push((await timed()).ms);
warmRuns.sort((a, b) => a - b);
console.log(
  `\nlocal evaluation definitions, ${cold.flags} flags, ${Math.round(cold.bytes / 1024)} KiB: cold (read + render) ${cold.ms.toFixed(1)} ms; cached median ${median(warmRuns).toFixed(1)} ms, max ${warmRuns[warmRuns.length - 1]?.toFixed(1)} ms (30 requests over HTTP)`,
);

const definitions = `local evaluation definitions, ${cold.flags} flags`;
report({
  case: definitions,
  metric: 'cold',
  value: cold.ms,
  unit: 'ms',
  goal: { op: '<=', value: 50, issue: 39 },
});
report({
  case: definitions,
  metric: 'cached median',
  value: median(warmRuns),
  unit: 'ms',
  goal: { op: '<=', value: 5, issue: 39 },
});

await close();
