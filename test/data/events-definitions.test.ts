import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, query, type RawEvent, uuid } from '../helpers/query-lists.js';

/** Events list, definitions collected at ingestion, and typed properties in HogQL, on real stores. */
let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
const ev = (
  event: string,
  distinct_id: string,
  minutesAgo: number,
  properties: Record<string, unknown> = {},
): RawEvent => ({
  event,
  distinct_id,
  timestamp: at(minutesAgo),
  uuid: uuid(),
  properties,
});

const get = async (path: string, key = h.key) => {
  const res = await h.request('GET', path, { key });
  return {
    status: res.statusCode,
    body: res.json() as Record<string, unknown> & { results: Array<Record<string, unknown>> },
  };
};

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('purchase', 'u1', 50, {
      amount: 12.5,
      paid: true,
      mixed: 5,
      plan: 'pro',
      $set: { age: 30, vip: 'true' },
    }),
    ev('purchase', 'u2', 40, { amount: 30, paid: false, mixed: 'lots', plan: 'free' }),
    ev('purchase', 'u1', 30, { amount: 'n/a', paid: true, plan: 'pro' }),
    ev('$pageview', 'u2', 20, {
      $current_url: 'https://x.test/a',
      utm_source: 42,
      signup_date: '2024-05-01T10:00:00Z',
    }),
    ev('$pageview', 'u3', 10, { $current_url: 'https://x.test/b' }),
  ]);
  await capture(h, other.token, other.projectId, [ev('secret_event', 'z', 5, { secret: 1 })], other.key);
  await h.app.definitions.flush();
});
afterAll(async () => h?.close());

describe('events resource', () => {
  it('lists newest first with filters and a `before` cursor', async () => {
    const all = await get(`/api/projects/${project}/events/`);
    expect(all.status).toBe(200);
    expect(all.body.results.map((e) => e.event)).toEqual([
      '$pageview',
      '$pageview',
      'purchase',
      'purchase',
      'purchase',
    ]);
    expect(all.body.next).toBeNull();
    const page = await get(`/api/projects/${project}/events/?event=purchase&limit=2`);
    expect(page.body.results).toHaveLength(2);
    const next = new URL(page.body.next as string);
    expect(next.searchParams.get('before')).toBe(page.body.results[1]?.timestamp);
    const rest = await get(next.pathname + next.search);
    expect(rest.body.results.map((e) => (e.properties as { amount: unknown }).amount)).toEqual([12.5]);
    expect(rest.body.next).toBeNull();
    const props = encodeURIComponent(JSON.stringify([{ key: 'plan', value: 'pro', operator: 'exact' }]));
    expect((await get(`/api/projects/${project}/events/?properties=${props}`)).body.results).toHaveLength(2);
    expect((await get(`/api/projects/${project}/events/?distinct_id=u3`)).body.results).toHaveLength(1);
  });

  it('retrieves by uuid, never another project’s event', async () => {
    const first = (await get(`/api/projects/${project}/events/?limit=1`)).body.results[0] as { id: string };
    const one = await get(`/api/projects/${project}/events/${first.id}/`);
    expect(one.body).toMatchObject({ id: first.id, event: '$pageview', distinct_id: 'u3' });
    const theirs = (await get(`/api/projects/${other.projectId}/events/`, other.key)).body.results[0] as {
      id: string;
    };
    expect((await get(`/api/projects/${project}/events/${theirs.id}/`)).status).toBe(404);
  });

  it('values of a property', async () => {
    const res = await get(`/api/projects/${project}/events/values/?key=plan`);
    expect(res.body).toEqual([{ name: 'pro' }, { name: 'free' }]);
  });

  it('refuses malformed filters with a 400', async () => {
    for (const qs of [
      'properties=%5Bnope',
      'before=yesterday-ish',
      'person_id=42',
      `properties=${encodeURIComponent('[{"key":"a","type":"bogus"}]')}`,
    ]) {
      const res = await get(`/api/projects/${project}/events/?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.body.type).toBe('validation_error');
    }
  });
});

describe('definitions', () => {
  it('collects event definitions at ingestion, per project', async () => {
    const res = await get(`/api/projects/${project}/event_definitions/`);
    expect(res.body.results.map((d) => d.name).sort()).toEqual(['$pageview', 'purchase']);
    expect(res.body.results[0]?.last_seen_at).toEqual(expect.any(String));
    const byName = await get(`/api/projects/${project}/event_definitions/by_name/?name=purchase`);
    expect(byName.body.name).toBe('purchase');
    expect((await get(`/api/projects/${project}/event_definitions/?search=PURCH`)).body.results).toHaveLength(
      1,
    );
  });

  it('types properties as PostHog does; the first type seen wins', async () => {
    const res = await get(`/api/projects/${project}/property_definitions/?limit=100`);
    const types = Object.fromEntries(res.body.results.map((d) => [d.name, d.property_type]));
    expect(types).toMatchObject({
      amount: 'Numeric',
      paid: 'Boolean',
      mixed: 'Numeric',
      plan: 'String',
      utm_source: 'String',
      signup_date: 'DateTime',
    });
    const person = await get(`/api/projects/${project}/property_definitions/?type=person`);
    expect(Object.fromEntries(person.body.results.map((d) => [d.name, d.property_type]))).toEqual({
      age: 'Numeric',
      vip: 'Boolean',
    });
    const numeric = await get(`/api/projects/${project}/property_definitions/?is_numerical=true`);
    expect(numeric.body.results.map((d) => d.name).sort()).toEqual(['amount', 'mixed']);
    const onPageview = await get(
      `/api/projects/${project}/property_definitions/?event_names=${encodeURIComponent('["$pageview"]')}&filter_by_event_names=true`,
    );
    expect(onPageview.body.results.map((d) => d.name).sort()).toEqual([
      '$current_url',
      '$ip',
      'signup_date',
      'utm_source',
    ]);
  });

  it('PATCHes description, tags and verified', async () => {
    const def = (await get(`/api/projects/${project}/event_definitions/by_name/?name=purchase`))
      .body as unknown as {
      id: string;
    };
    const res = await h.request('PATCH', `/api/projects/${project}/event_definitions/${def.id}/`, {
      body: { description: 'A sale', tags: ['money'], verified: true },
    });
    expect(res.json()).toMatchObject({ description: 'A sale', tags: ['money'], verified: true });
  });

  it('refuses unknown filter values; other projects see none of it', async () => {
    expect((await get(`/api/projects/${project}/property_definitions/?type=bogus`)).status).toBe(400);
    expect((await get(`/api/projects/${project}/property_definitions/?type=group`)).status).toBe(400);
    expect((await get(`/api/projects/${project}/property_definitions/?event_names=nope`)).status).toBe(400);
    const theirs = await get(`/api/projects/${other.projectId}/event_definitions/`, other.key);
    expect(theirs.body.results.map((d) => d.name)).toEqual(['secret_event']);
    const def = theirs.body.results[0] as { id: string };
    expect((await get(`/api/projects/${project}/event_definitions/${def.id}/`)).status).toBe(404);
  });
});

describe('typed properties in HogQL', () => {
  const hogql = async (q: string) => {
    const res = await query(h, project, { kind: 'HogQLQuery', query: q });
    if (res.statusCode !== 200 && !q.includes('properties.plan')) throw new Error(res.body);
    return { status: res.statusCode, body: res.json() as { results: unknown[][]; detail?: string } };
  };

  it('sums and compares a Numeric property without a cast', async () => {
    expect(
      (await hogql(`SELECT sum(properties.amount) FROM events WHERE event = 'purchase'`)).body.results,
    ).toEqual([[42.5]]);
    expect((await hogql(`SELECT count() FROM events WHERE properties.amount > 10`)).body.results).toEqual([
      [2],
    ]);
  });

  it('compares a Boolean property with true', async () => {
    expect((await hogql(`SELECT count() FROM events WHERE properties.paid = true`)).body.results).toEqual([
      [2],
    ]);
    expect((await hogql(`SELECT count() FROM persons WHERE properties.vip = true`)).body.results).toEqual([
      [1],
    ]);
  });

  it('a property seen first as a number stays Numeric: later strings read as NULL', async () => {
    expect(
      (await hogql(`SELECT sum(properties.mixed), count(properties.mixed) FROM events`)).body.results,
    ).toEqual([[5, 1]]);
  });

  it('functions that parse text get the raw value of a typed property', async () => {
    const out = await hogql(
      `SELECT toDateTime(properties.signup_date), toFloatOrZero(properties.amount) FROM events WHERE event = '$pageview' AND properties.signup_date IS NOT NULL`,
    );
    expect(out.body.results).toEqual([['2024-05-01T10:00:00Z', null]]);
    expect(
      (await hogql(`SELECT count() FROM events WHERE properties.signup_date > '2024-01-01'`)).body.results,
    ).toEqual([[1]]);
  });

  it('a String property in sum() is a clean 400, not leaked SQL', async () => {
    const res = await hogql(`SELECT sum(properties.plan) FROM events`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toMatch(/JSONExtractRaw|hogql_val/);
  });
});
