/**
 * `/flags?v=2` for a project with 50 flags against a Fastify hello-world route on the same server,
 * same run; then the local evaluation definitions of a project with 1 000 flags, cold and cached.
 * Usage: npm run bench:flags [-- --seconds 5 --connections 64 --rounds 3]   (DATABASE_URL for PostgreSQL)
 */
import { newUuid } from '../src/domain/ids.js';
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
  medianOf,
  rowAgainst,
  table,
} from './lib.js';

const options = loadOptions();
const { seconds, connections, rounds } = options;
const { app, stores, boot, base, auth, close } = await benchServer('flags');

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

const post = { method: 'POST' as const, body: flagsBody, headers: { 'content-type': 'application/json' } };
await autocannon(`${base}${HELLO_PATH}`, { connections, seconds: 2 });
await autocannon(`${base}/flags/?v=2`, { connections, seconds: 2, ...post });
const samples: Record<'hello' | 'flags', LoadResult[]> = { hello: [], flags: [] };
for (let i = 0; i < rounds; i++) {
  samples.hello.push(await autocannon(`${base}${HELLO_PATH}`, { connections, seconds }));
  samples.flags.push(await autocannon(`${base}/flags/?v=2`, { connections, seconds, ...post }));
}
const hello = medianOf(samples.hello);
const row = rowAgainst(hello);
console.log(loadHeader(stores.meta.dialect.name, options));
console.log(
  table([
    row('GET /_bench/hello (Fastify hello world)', hello),
    row('POST /flags/?v=2 (50 flags, stored person)', medianOf(samples.flags)),
  ]),
);

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

await close();
