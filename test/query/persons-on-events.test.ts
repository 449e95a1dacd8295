import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../helpers/harness.js';
import {
  ev,
  hogqlIn,
  MODES,
  type Mode,
  PAGEVIEWS,
  POE_NOW,
  seedPersonsOnEvents,
} from '../helpers/persons-on-events.js';
import { capture, ok, otherProject, query } from '../helpers/query-lists.js';

/**
 * PostHog's `personsOnEventsMode` through POST /query, on events sent through /batch/ (so the
 * person columns on each event are what ingestion wrote): merges by `$identify` and
 * `$create_alias`, a `$set` after earlier events, and a deleted person, in every mode, chosen by
 * the query's modifiers and by the project's default modifiers.
 */
let h: Harness;
let project: number;
let ids: Record<string, string> = {};
const hogql = (q: string, mode?: Mode) => hogqlIn(h, project)(q, mode);

beforeAll(async () => {
  h = await startHarness({}, { now: () => POE_NOW });
  project = h.boot.project_id;
  ids = await seedPersonsOnEvents(h);
});
afterAll(async () => h?.close());

describe('persons on events: what each mode reads', () => {
  it('ingestion writes the person as it was: id, properties after the event’s $set, creation time', async () => {
    const out = await hogql(
      "SELECT distinct_id, poe.properties.plan, toString(poe.id), poe.created_at IS NOT NULL FROM events WHERE event = '$pageview' ORDER BY timestamp",
    );
    expect(out.results).toEqual([
      ['a1', 'free', ids.a1, 1],
      ['u1', 'pro', ids.u1, 1],
      ['u1', 'enterprise', ids.u1, 1],
      ['c2', 'trial', ids.c2, 1],
      ['c1', 'team', ids.c1, 1],
      ['x1', 'pro', ids.x1, 1],
    ]);
    // Four different persons were written; a1's and u1's are not yet the same.
    expect(new Set(Object.values(ids)).size).toBe(5);
  });

  it('person_id_no_override_properties_on_events: the id and properties on the event, no join', async () => {
    const out = await hogql(PAGEVIEWS, 'person_id_no_override_properties_on_events');
    expect(out.results).toEqual([
      ['a1', ids.a1, 'free'],
      ['u1', ids.u1, 'pro'],
      ['u1', ids.u1, 'enterprise'],
      ['c2', ids.c2, 'trial'],
      ['c1', ids.c1, 'team'],
      ['x1', ids.x1, 'pro'],
    ]);
    expect(out.clickhouse).not.toContain('JOIN');
    expect(out.modifiers).toMatchObject({
      personsOnEventsMode: 'person_id_no_override_properties_on_events',
    });
  });

  it('person_id_override_properties_on_events: merged ids, point-in-time properties', async () => {
    const out = await hogql(PAGEVIEWS, 'person_id_override_properties_on_events');
    expect(out.results).toEqual([
      ['a1', ids.u1, 'free'],
      ['u1', ids.u1, 'pro'],
      ['u1', ids.u1, 'enterprise'],
      ['c2', ids.c1, 'trial'],
      ['c1', ids.c1, 'team'],
      // A deleted person's distinct id has no mapping: the id on the event stays.
      ['x1', ids.x1, 'pro'],
    ]);
    // Filtering or breaking down by a person property needs no join at all.
    const filter = await hogql(
      "SELECT count() FROM events WHERE person.properties.plan = 'pro' AND event = '$pageview'",
      'person_id_override_properties_on_events',
    );
    expect(filter.results).toEqual([[2]]);
    expect(filter.clickhouse).not.toContain('JOIN');
  });

  it('person_id_override_properties_joined (the default): merged ids, current properties', async () => {
    const expected = [
      ['a1', ids.u1, 'enterprise'],
      ['u1', ids.u1, 'enterprise'],
      ['u1', ids.u1, 'enterprise'],
      ['c2', ids.c1, 'team'],
      ['c1', ids.c1, 'team'],
      // The person is deleted: no properties.
      ['x1', ids.x1, null],
    ];
    expect((await hogql(PAGEVIEWS, 'person_id_override_properties_joined')).results).toEqual(expected);
    const byDefault = await hogql(PAGEVIEWS);
    expect(byDefault.results).toEqual(expected);
    expect(byDefault.modifiers).toMatchObject({
      personsOnEventsMode: 'person_id_override_properties_joined',
    });
  });

  it('disabled: persons through their distinct ids only; a deleted person’s events have none', async () => {
    const out = await hogql(PAGEVIEWS, 'disabled');
    expect(out.results).toEqual([
      ['a1', ids.u1, 'enterprise'],
      ['u1', ids.u1, 'enterprise'],
      ['u1', ids.u1, 'enterprise'],
      ['c2', ids.c1, 'team'],
      ['c1', ids.c1, 'team'],
    ]);
  });

  it('counts unique persons by mode: merges apply except in the no-override mode', async () => {
    const q = "SELECT count(DISTINCT person_id) FROM events WHERE event = '$pageview'";
    const counts = Object.fromEntries(
      await Promise.all(MODES.map(async (m) => [m, (await hogql(q, m)).results[0]?.[0]] as const)),
    );
    expect(counts).toEqual({
      disabled: 2,
      person_id_no_override_properties_on_events: 5,
      person_id_override_properties_on_events: 3,
      person_id_override_properties_joined: 3,
    });
  });

  it('insights follow the modifiers: a trends breakdown by a person property', async () => {
    const trends = (mode: Mode) =>
      ok(h, project, {
        kind: 'TrendsQuery',
        dateRange: { date_from: '2025-06-15', date_to: '2025-06-15' },
        interval: 'day',
        series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }],
        breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
        trendsFilter: { display: 'ActionsTable' },
        modifiers: { personsOnEventsMode: mode },
      });
    const totals = async (mode: Mode) => {
      const out = await trends(mode);
      return Object.fromEntries(
        (out.results as unknown as Array<{ breakdown_value: string; aggregated_value: number }>).map((r) => [
          r.breakdown_value,
          r.aggregated_value,
        ]),
      );
    };
    expect(await totals('person_id_override_properties_on_events')).toEqual({
      free: 1,
      pro: 2,
      enterprise: 1,
      trial: 1,
      team: 1,
    });
    expect(await totals('person_id_override_properties_joined')).toMatchObject({ enterprise: 3, team: 2 });
  });

  it('refuses an unknown mode as PostHog does', async () => {
    const res = await query(h, project, {
      kind: 'HogQLQuery',
      query: 'SELECT 1',
      modifiers: { personsOnEventsMode: 'sometimes' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: 'validation_error',
      attr: 'query__modifiers__personsOnEventsMode',
    });
    expect(res.json().detail).toContain("'person_id_override_properties_joined'");
  });
});

describe('persons on events: the project setting', () => {
  const patch = (modifiers: unknown) =>
    h.request('PATCH', `/api/projects/${project}/`, { body: { modifiers } });

  it('defaults to PostHog self-hosted’s mode and says so on the project', async () => {
    const res = await h.request('GET', `/api/projects/${project}/`);
    expect(res.json()).toMatchObject({
      modifiers: null,
      default_modifiers: { personsOnEventsMode: 'person_id_override_properties_joined' },
      person_on_events_querying_enabled: false,
    });
  });

  it('team.modifiers sets the default for queries that set none; a query’s own mode wins', async () => {
    const res = await patch({ personsOnEventsMode: 'person_id_override_properties_on_events' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      modifiers: { personsOnEventsMode: 'person_id_override_properties_on_events' },
      default_modifiers: { personsOnEventsMode: 'person_id_override_properties_on_events' },
      person_on_events_querying_enabled: true,
    });
    try {
      const q = "SELECT person.properties.plan FROM events WHERE distinct_id = 'a1' AND event = '$pageview'";
      const out = await hogql(q);
      expect(out.results).toEqual([['free']]);
      expect(out.modifiers).toMatchObject({ personsOnEventsMode: 'person_id_override_properties_on_events' });
      expect((await hogql(q, 'person_id_override_properties_joined')).results).toEqual([['enterprise']]);
      // Structured queries too, and their response names the mode applied.
      const events = await ok(h, project, {
        kind: 'EventsQuery',
        select: ['person.properties.plan'],
        where: ["distinct_id = 'a1'", "event = '$pageview'"],
        after: '2025-06-14',
      });
      expect(events.results).toEqual([['free']]);
      expect(events.modifiers).toMatchObject({
        personsOnEventsMode: 'person_id_override_properties_on_events',
      });
    } finally {
      expect((await patch(null)).statusCode).toBe(200);
    }
    expect(
      (
        await hogql(
          "SELECT person.properties.plan FROM events WHERE distinct_id = 'a1' AND event = '$pageview'",
        )
      ).results,
    ).toEqual([['enterprise']]);
  });

  it('refuses an unknown mode on the project', async () => {
    const res = await patch({ personsOnEventsMode: 'always' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_choice', attr: 'modifiers' });
  });

  it('keeps the team guard in every mode: another project’s events and persons stay out', async () => {
    const other = await otherProject(h);
    await capture(
      h,
      other.token,
      other.projectId,
      [ev('$pageview', 'a1', '11:00:00', { $set: { plan: 'other-org' } })],
      other.key,
    );
    for (const mode of MODES) {
      const out = await hogql(
        "SELECT count() FROM events WHERE person.properties.plan = 'other-org' OR distinct_id = 'nobody'",
        mode,
      );
      expect(out.results).toEqual([[0]]);
      // Every table the mode reads carries the guard in its own SELECT.
      const tables = out.clickhouse.match(/ AS (events|raw_persons|raw_person_distinct_ids)\b/g) ?? [];
      for (const t of tables) expect(out.clickhouse).toContain(`equals(${t.slice(4)}.team_id, ${project})`);
    }
  });
});
