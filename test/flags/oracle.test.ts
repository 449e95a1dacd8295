import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Differential oracle: posthog-node's own local evaluation (its poller reading Burrow's definitions)
 * and Burrow's `/flags?v=2` must agree on every generated (flag, person) pair that posthog-node can
 * decide locally. Flags, people and properties come from a seeded generator; SEED reproduces a run.
 *
 * The generator stays inside what PostHog's SDK and server define the same way: numeric bounds for
 * gt/lt, release versions (no pre-release tags) for semver, dates with an explicit zone. Outside it
 * PostHog's own SDK and server disagree (the SDK compares non-numbers as text, ignores pre-release
 * tags), and the SDK then answers "inconclusive" or differs by design.
 */
const SEED = Number(process.env.ORACLE_SEED ?? 20261125);
const FLAGS = Number(process.env.ORACLE_FLAGS ?? 110);
const PEOPLE = Number(process.env.ORACLE_PEOPLE ?? 130);
const MIN_CASES = 10_000;

const r = seededRandom(SEED);
const pick = <T>(list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

const PLANS = ['free', 'pro', 'Pro', 'enterprise', 'team', 'PRO', 'trial'];
const EMAILS = ['ann@acme.com', 'bob@example.org', 'cy@ACME.com', 'dee@test.io', 'eve@corp.acme.com'];
const COUNTRIES = ['US', 'us', 'DE', 'FR', 'GB', 'BR'];
const VERSIONS = ['1.0.0', '1.2.3', '1.10.0', '2.0.0', '2.1', 'v1.2.4', '0.9.12', '3.0.1', '0.0.3'];
const DATES = [
  '2024-01-15T10:00:00Z',
  '2024-06-30T23:59:59Z',
  '2025-03-01T00:00:00Z',
  '2023-12-31T12:00:00+02:00',
  '2026-11-20T08:00:00Z',
];

type Prop = { key: string; value?: unknown; operator: string; type: 'person' };

function property(): Prop {
  switch (int(0, 9)) {
    case 0:
      return {
        key: 'plan',
        type: 'person',
        operator: pick(['exact', 'is_not']),
        value: r() < 0.5 ? pick(PLANS) : [pick(PLANS), pick(PLANS)],
      };
    case 1:
      return {
        key: 'email',
        type: 'person',
        operator: pick(['icontains', 'not_icontains']),
        value: pick(['acme', 'ACME.com', 'example', '@', 'zzz']),
      };
    case 2:
      return {
        key: 'email',
        type: 'person',
        operator: pick(['regex', 'not_regex']),
        value: pick(['^a', 'acme\\.com$', '[0-9]', 'b.b', '^(ann|eve)@']),
      };
    case 3:
      return {
        key: 'age',
        type: 'person',
        operator: pick(['gt', 'gte', 'lt', 'lte']),
        value: String(pick([18, 21, 30, 45.5, 65])),
      };
    case 4:
      return { key: 'country', type: 'person', operator: 'exact', value: pick(COUNTRIES) };
    case 5:
      return { key: pick(['plan', 'country', 'beta']), type: 'person', operator: 'is_set' };
    case 6:
      return {
        key: 'beta',
        type: 'person',
        operator: pick(['exact', 'is_not']),
        value: pick([true, false, 'true', 'false', ['true']]),
      };
    case 7:
      return {
        key: 'app_version',
        type: 'person',
        operator: pick([
          'semver_eq',
          'semver_neq',
          'semver_gt',
          'semver_gte',
          'semver_lt',
          'semver_lte',
          'semver_tilde',
          'semver_caret',
          'semver_wildcard',
        ]),
        value: '',
      };
    case 8:
      return {
        key: 'signed_up',
        type: 'person',
        operator: pick(['is_date_before', 'is_date_after']),
        value: pick(['2024-03-01', '2025-01-01T00:00:00Z', '-30d', '-2y', '2023-06-15']),
      };
    default:
      return {
        key: 'email',
        type: 'person',
        operator: pick(['starts_with', 'not_starts_with', 'ends_with', 'not_ends_with']),
        value: pick(['ann', 'B', '.com', 'acme.com']),
      };
  }
}

function semverValue(operator: string): string {
  if (operator === 'semver_wildcard') return pick(['1.*', '1.2.*', '2.*', '0.*']);
  return pick(['1.2.3', '1.0.0', '2.0.0', '0.9.0', '1.10', '0.0.3', '3.0.0']);
}

function flag(i: number) {
  const variants =
    r() < 0.4
      ? (() => {
          const n = int(2, 4);
          const cuts = Array.from({ length: n - 1 }, () => int(0, 100)).sort((a, b) => a - b);
          const bounds = [0, ...cuts, 100];
          return Array.from({ length: n }, (_, k) => ({
            key: `v${k}`,
            rollout_percentage: (bounds[k + 1] as number) - (bounds[k] as number),
          }));
        })()
      : null;
  const groups = Array.from({ length: int(1, 3) }, () => {
    const properties = Array.from({ length: int(0, 3) }, property).map((p) =>
      p.operator.startsWith('semver_') ? { ...p, value: semverValue(p.operator) } : p,
    );
    return {
      properties,
      rollout_percentage: r() < 0.2 ? null : pick([0, 10, 33, 50, 75, 99, 100, int(0, 100)]),
      ...(variants && r() < 0.3 ? { variant: pick(variants).key } : {}),
    };
  });
  const payloads: Record<string, unknown> = {};
  if (variants) for (const v of variants) if (r() < 0.5) payloads[v.key] = { v: v.key, n: int(0, 9) };
  if (!variants && r() < 0.5) payloads.true = JSON.stringify({ on: true, i });
  return {
    key: `oracle-${i}-${Math.floor(r() * 1e6).toString(36)}`,
    active: r() < 0.93,
    filters: { groups, multivariate: variants ? { variants } : null, payloads },
  };
}

function person(i: number) {
  const props: Record<string, unknown> = {
    plan: pick(PLANS),
    email: pick(EMAILS),
    age: pick([17, 18, 21.5, 30, 44, 65, 70, '33', '18']),
    country: pick(COUNTRIES),
    beta: pick([true, false, 'true', 'False']),
    app_version: pick(VERSIONS),
    signed_up: pick(DATES),
  };
  // Now and then a property is missing: posthog-node then cannot decide (that pair is skipped).
  for (const key of Object.keys(props)) if (r() < 0.04) delete props[key];
  const id = pick([
    `user-${i}`,
    `${i}@mail.test`,
    `анон-${i}`,
    `${Math.floor(r() * 1e12)}`,
    `🦔-${i}`,
    crypto.randomUUID(),
  ]);
  return { distinctId: id, props };
}

function guessed(filters: unknown, props: Record<string, unknown>): boolean {
  const groups = (filters as { groups?: Array<{ properties?: Array<{ key: string }> }> }).groups ?? [];
  return groups.some((g) => (g.properties ?? []).some((p) => !Object.hasOwn(props, p.key)));
}

describe(`differential oracle: posthog-node local evaluation vs Burrow /flags (${backend})`, () => {
  let h: Harness;
  let url: string;
  let client: PostHog;
  let secretClient: PostHog;
  beforeAll(async () => {
    h = await startHarness();
    url = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `/api/projects/${h.boot.project_id}/feature_flags/`;
    for (let i = 0; i < FLAGS; i++) {
      const res = await h.request('POST', base, { body: flag(i) });
      expect(res.statusCode, res.body).toBe(201);
    }
    const secret = (await h.request('POST', `/api/projects/${h.boot.project_id}/rotate_secret_token/`)).json()
      .secret_api_token;
    const options = {
      host: url,
      featureFlagsPollingInterval: 600_000,
      flushAt: 10_000,
      flushInterval: 600_000,
      disableGeoip: true,
    };
    client = new PostHog(h.boot.project_api_key, { ...options, personalApiKey: h.key });
    secretClient = new PostHog(h.boot.project_api_key, { ...options, personalApiKey: secret });
    expect(await client.waitForLocalEvaluationReady(10_000)).toBe(true);
    expect(await secretClient.waitForLocalEvaluationReady(10_000)).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await client?.shutdown();
    await secretClient?.shutdown();
    await h?.close();
  });

  it(`agrees on at least ${MIN_CASES} (flag, person) pairs (seed ${SEED})`, async () => {
    let compared = 0;
    let undecided = 0;
    const disagreements: string[] = [];
    const definitions = (
      await h.request('GET', `/api/projects/${h.boot.project_id}/feature_flags/?limit=1000`)
    ).json().results as Array<{ key: string; filters: unknown; active: boolean }>;
    const byKey = new Map(definitions.map((d) => [d.key, d]));
    for (let i = 0; i < PEOPLE; i++) {
      const { distinctId, props } = person(i);
      const local = await (i % 2 === 0 ? client : secretClient).getAllFlagsAndPayloads(distinctId, {
        personProperties: props as Record<string, string>,
        onlyEvaluateLocally: true,
      });
      const res = await fetch(`${url}/flags/?v=2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          token: h.boot.project_api_key,
          distinct_id: distinctId,
          person_properties: { distinct_id: distinctId, ...props },
        }),
      });
      expect(res.status).toBe(200);
      const remote = ((await res.json()) as { flags: unknown }).flags as Record<
        string,
        { enabled: boolean; variant: string | null; metadata: { payload: unknown } }
      >;
      for (const def of definitions) {
        const mine = local.featureFlags?.[def.key];
        // posthog-node skips a condition it cannot decide (a property it was not given) and may answer
        // from a later one; PostHog's server decides that condition (e.g. is_not on a missing property
        // holds). Such an answer is a guess, not an oracle, so the pair is not compared.
        if (mine === undefined || guessed(def.filters, props)) {
          undecided++;
          continue;
        }
        compared++;
        const theirs = remote[def.key];
        const value = theirs ? (theirs.enabled ? (theirs.variant ?? true) : false) : false;
        const rawPayload = theirs?.enabled ? theirs.metadata.payload : null;
        const payload = typeof rawPayload === 'string' ? JSON.parse(rawPayload) : (rawPayload ?? undefined);
        const localPayload = local.featureFlagPayloads?.[def.key] ?? undefined;
        if (value !== mine || JSON.stringify(payload) !== JSON.stringify(localPayload)) {
          disagreements.push(
            JSON.stringify({
              distinctId,
              props,
              flag: byKey.get(def.key),
              posthogNode: { value: mine, payload: localPayload },
              burrow: { value, payload },
            }),
          );
        }
      }
    }
    for (const d of disagreements.slice(0, 50)) console.error(`DISAGREEMENT ${d}`);
    console.log(
      `oracle: seed ${SEED}, ${compared} pairs compared, ${undecided} left undecided by posthog-node, ${disagreements.length} disagreements`,
    );
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(MIN_CASES);
  }, 300_000);
});
