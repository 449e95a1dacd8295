import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidFromDistinctId } from '../../src/domain/ingest/person-uuid.js';
import { findPersonByDistinctId } from '../../src/store/meta/persons.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { eventsOfPerson, listPersons, personIdsByEvent, uniqueUsers } from '../helpers/personless.js';
import { capture, type RawEvent, uuid } from '../helpers/query-lists.js';

/**
 * PostHog's personless events (`$process_person_profile: false`) through real capture: no person,
 * PostHog's deterministic person id on the row, the person made when the distinct id is
 * identified, and the earlier events then that person's in every person-based read.
 */
let h: Harness;
let project: number;
let token: string;

const ev = (event: string, distinct_id: string, properties: Record<string, unknown> = {}): RawEvent => ({
  event,
  distinct_id,
  timestamp: new Date().toISOString(),
  uuid: uuid(),
  properties,
});
const personless = (event: string, distinct_id: string, properties: Record<string, unknown> = {}) =>
  ev(event, distinct_id, { ...properties, $process_person_profile: false });

interface Row {
  event: string;
  distinct_id: string;
  person_id: string;
  person_properties: string;
  person_created_at: string;
  properties: string;
  $group_0: string;
}
async function rows(distinctIds: string[]): Promise<Row[]> {
  return h.stores.events.query<Row>(
    `SELECT event, distinct_id, toString(person_id) AS person_id, person_properties,
            toString(person_created_at) AS person_created_at, properties, $group_0
     FROM ${h.stores.events.table('events')} FINAL
     WHERE team_id = {t:Int64} AND distinct_id IN {d:Array(String)} ORDER BY timestamp, event`,
    { params: { t: project, d: distinctIds } },
  );
}
const person = (distinctId: string) => findPersonByDistinctId(h.stores.meta.db, project, distinctId);

beforeAll(async () => {
  h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
  project = h.boot.project_id;
  token = h.boot.project_api_key;
});
afterAll(async () => h?.close());

describe(`personless events (${backend})`, () => {
  it('derives the person id as PostHog does (UUIDv5 of "team:distinct id" in its namespace)', () => {
    // Known answers from the `uuid` package's v5, which PostHog's ingestion calls.
    expect(uuidFromDistinctId(2, 'anon-1')).toBe('21085864-97d0-5278-8829-a8b3a9377c9f');
    expect(uuidFromDistinctId(1, 'ß-ユーザー')).toBe('d8be5f19-6b28-5b2c-a84b-916830db1746');
    expect(uuidFromDistinctId(2, 'anon-1')).not.toBe(uuidFromDistinctId(3, 'anon-1'));
  });

  it('makes no person, writes the deterministic id, and ignores $set, $set_once, $unset and $groups', async () => {
    await capture(h, token, project, [
      personless('$pageview', 'anon-a', {
        $set: { email: 'a@x.test' },
        $set_once: { first: 1 },
        $unset: ['k'],
        $groups: { company: 'acme' },
      }),
      personless('$pageview', 'anon-a'),
    ]);
    // The second request hits the node's memory of the personless distinct id (no metadata read).
    await capture(h, token, project, [personless('$pageleave', 'anon-a')]);
    expect(await person('anon-a')).toBeUndefined();
    expect(await listPersons(h, project)).toEqual([]);
    const stored = await rows(['anon-a']);
    expect(stored).toHaveLength(3);
    for (const r of stored) {
      expect(r.person_id).toBe(uuidFromDistinctId(project, 'anon-a'));
      expect(r.person_properties).toBe('{}');
      expect(r.person_created_at).toBe('1970-01-01 00:00:05.000');
      expect(r.$group_0).toBe('');
      const props = JSON.parse(r.properties);
      expect(props.$process_person_profile).toBe(false);
      expect(props).not.toHaveProperty('$set');
      expect(props).not.toHaveProperty('$set_once');
      expect(props).not.toHaveProperty('$unset');
    }
    // Counted as one user, as PostHog counts personless distinct ids.
    expect(await uniqueUsers(h, project, '$pageview')).toBe(1);
  });

  it('identifying the distinct id makes one person, and the earlier events become its own', async () => {
    await capture(h, token, project, [personless('$pageview', 'anon-b'), personless('clicked', 'anon-b')]);
    expect(await person('anon-b')).toBeUndefined();
    await capture(h, token, project, [
      ev('$identify', 'user-b', { $anon_distinct_id: 'anon-b', $set: { email: 'b@x.test' } }),
      ev('$pageview', 'user-b'),
    ]);
    const made = await person('user-b');
    expect(made?.properties).toEqual({ email: 'b@x.test' });
    expect((await person('anon-b'))?.id).toBe(made?.id);

    const listed = (await listPersons(h, project)).filter((p) => p.distinct_ids.includes('user-b'));
    expect(listed).toHaveLength(1);
    expect(new Set(listed[0]?.distinct_ids)).toEqual(new Set(['user-b', 'anon-b']));

    // The anonymous rows still carry the deterministic id; queries map them to the person.
    const stored = await rows(['anon-b']);
    expect(stored.map((r) => r.person_id)).toEqual([
      uuidFromDistinctId(project, 'anon-b'),
      uuidFromDistinctId(project, 'anon-b'),
    ]);
    const resolved = await personIdsByEvent(h, project, "distinct_id IN ('anon-b', 'user-b')");
    expect(resolved).toHaveLength(4);
    expect(new Set(resolved.map((r) => r.personId))).toEqual(new Set([made?.id]));
    expect((await eventsOfPerson(h, project, made?.id as string)).sort()).toEqual(
      ['$identify@user-b', '$pageview@anon-b', '$pageview@user-b', 'clicked@anon-b'].sort(),
    );
  });

  it('a personless event of a distinct id with a person carries its id, not its properties, and changes nothing', async () => {
    await capture(h, token, project, [ev('$pageview', 'user-c', { $set: { plan: 'pro' } })]);
    const before = await person('user-c');
    await capture(h, token, project, [personless('$pageview', 'user-c', { $set: { plan: 'free' } })]);
    const after = await person('user-c');
    expect(after?.properties).toEqual({ plan: 'pro' });
    expect(after?.version).toBe(before?.version);
    const [, last] = await rows(['user-c']);
    expect(last?.person_id).toBe(before?.id);
    expect(last?.person_properties).toBe('{}');
    expect(last?.person_created_at).not.toBe('1970-01-01 00:00:05.000');
  });

  it('drops identity events that ask for no person, as PostHog does', async () => {
    const dropped = [
      personless('$identify', 'user-d', { $anon_distinct_id: 'anon-d' }),
      personless('$create_alias', 'user-d', { alias: 'alias-d' }),
      personless('$merge_dangerously', 'user-d', { alias: 'alias-d' }),
      personless('$groupidentify', 'user-d', { $group_type: 'company', $group_key: 'd' }),
    ];
    const kept = personless('kept', 'user-d');
    const res = await h.request('POST', '/batch/', {
      key: null,
      body: { api_key: token, batch: [...dropped, kept] },
    });
    expect(res.statusCode).toBe(200);
    await capture(h, token, project, [personless('marker', 'user-d')]);
    expect((await rows(['user-d'])).map((r) => r.event)).toEqual(['kept', 'marker']);
    for (const d of ['user-d', 'anon-d', 'alias-d']) expect(await person(d)).toBeUndefined();
  });

  it('reads only a boolean false as personless; the flag is dropped from other events', async () => {
    await capture(h, token, project, [
      ev('$pageview', 'user-e', { $process_person_profile: true, $set: { a: 1 } }),
      ev('$pageview', 'user-f', { $process_person_profile: 'false', $set: { a: 2 } }),
    ]);
    expect((await person('user-e'))?.properties).toEqual({ a: 1 });
    expect((await person('user-f'))?.properties).toEqual({ a: 2 });
    for (const r of await rows(['user-e', 'user-f']))
      expect(JSON.parse(r.properties)).not.toHaveProperty('$process_person_profile');
  });

  it('$groupidentify updates the group but never the person ($set is dropped from it)', async () => {
    await capture(h, token, project, [
      ev('$groupidentify', 'user-g', {
        $group_type: 'company',
        $group_key: 'g',
        $group_set: { size: 3 },
        $set: { should: 'not' },
      }),
    ]);
    expect((await person('user-g'))?.properties ?? {}).toEqual({});
    const [row] = await rows(['user-g']);
    expect(JSON.parse(row?.properties ?? '{}')).not.toHaveProperty('$set');
  });

  it('an anonymous visitor later given a person by a personful event keeps one person for every event', async () => {
    await capture(h, token, project, [personless('$pageview', 'anon-h')]);
    // posthog-js switches a visitor to person processing (e.g. setPersonProperties) on the same id.
    await capture(h, token, project, [ev('$set', 'anon-h', { $set: { name: 'H' } })]);
    const made = await person('anon-h');
    expect(made?.properties).toEqual({ name: 'H' });
    await capture(h, token, project, [personless('$pageview', 'anon-h')]);
    const resolved = await personIdsByEvent(h, project, "distinct_id = 'anon-h'");
    expect(resolved.map((r) => r.personId)).toEqual([made?.id, made?.id, made?.id]);
    const stored = await rows(['anon-h']);
    expect(stored.map((r) => r.person_id)).toEqual([
      uuidFromDistinctId(project, 'anon-h'),
      made?.id,
      made?.id,
    ]);
  });
});
