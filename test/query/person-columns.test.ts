import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { compileSelect } from '../../src/hogql/compile.js';
import { checkPersonKeys, MAX_PERSON_KEY_LENGTH, personColumnName } from '../../src/store/events/columns.js';
import {
  discoveredPersonColumns,
  materializePersonProperties,
  pendingMaterializations,
} from '../../src/store/events/person-columns.js';
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
import { capture, ok, otherProject } from '../helpers/query-lists.js';

/**
 * `pmat_<key>` columns for person properties on events (issue 22): the same answers with and
 * without the column in every persons-on-events mode, while existing parts are still being
 * filled and after; the printed SQL reads the column only where it should.
 */
let h: Harness;
let project: number;
const hogql = (q: string, mode?: Mode) => hogqlIn(h, project)(q, mode);
const ON_EVENTS: Mode[] = [
  'person_id_override_properties_on_events',
  'person_id_no_override_properties_on_events',
];

const QUERIES = [
  PAGEVIEWS,
  "SELECT count() FROM events WHERE person.properties.plan = 'pro'",
  'SELECT person.properties.plan AS v, count() AS c FROM events GROUP BY v ORDER BY v, c',
  "SELECT distinct_id, poe.properties.plan FROM events WHERE event = '$pageview' ORDER BY timestamp, distinct_id",
  "SELECT person.properties['a.b'] AS v, count() FROM events WHERE v IS NOT NULL GROUP BY v ORDER BY v",
  "SELECT count() FROM events WHERE person.properties.plan IN ('free', 'team') OR person.properties.plan IS NULL",
];

/** Every query in every mode through POST /query: results, and the SQL it ran. */
async function runAll(): Promise<{ results: unknown[]; sql: Record<string, string> }> {
  const results: unknown[] = [];
  const sql: Record<string, string> = {};
  for (const mode of MODES) {
    for (const [i, q] of QUERIES.entries()) {
      const out = await hogql(q, mode);
      results.push([mode, i, out.results]);
      sql[`${mode} ${i}`] = out.clickhouse as string;
    }
    const trends = await ok(h, project, {
      kind: 'TrendsQuery',
      dateRange: { date_from: '2025-06-15', date_to: '2025-06-15' },
      interval: 'day',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }],
      breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
      trendsFilter: { display: 'ActionsTable' },
      modifiers: { personsOnEventsMode: mode },
    });
    results.push([mode, 'trends', trends.results]);
  }
  return { results, sql };
}

/** A query compiled with and without the store's person columns, both run on the engine. */
async function withAndWithout(q: string, mode: Mode) {
  const events = h.stores.events;
  const compile = (columns: boolean) =>
    compileSelect(q, {
      teamId: project,
      timezone: 'UTC',
      weekStartDay: 0,
      table: (t) => events.table(t),
      personsOnEventsMode: mode,
      ...(columns ? { personColumns: events.personColumns } : {}),
    });
  const [a, b] = [compile(true), compile(false)];
  const run = async (c: typeof a) => (await events.queryRows(c.sql, { params: c.params })).rows;
  return { sql: a.sql, with: await run(a), without: await run(b) };
}

let baseline: Awaited<ReturnType<typeof runAll>>;

beforeAll(async () => {
  h = await startHarness({ MATERIALIZED_PERSON_PROPERTIES: '' }, { now: () => POE_NOW });
  project = h.boot.project_id;
  await seedPersonsOnEvents(h);
  // Values of every JSON kind, which the column must render as the JSON path does.
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'n1', '10:30:00', { $set: { plan: 42, 'a.b': 'dotted' } }),
    ev('$pageview', 'o1', '10:31:00', { $set: { plan: { tier: 'x' } } }),
    ev('$pageview', 'b1', '10:32:00', { $set: { plan: true, 'a.b': '' } }),
    ev('$pageview', 'q1', '10:33:00', { $set: { plan: 'say "hi"' } }),
  ]);
  // Another project's events with the same values: the team guard keeps them out either way.
  const other = await otherProject(h);
  await capture(
    h,
    other.token,
    other.projectId,
    [ev('$pageview', 'a1', '11:00:00', { $set: { plan: 'pro', 'a.b': 'dotted' } })],
    other.key,
  );
  baseline = await runAll();
});
afterAll(async () => h?.close());

describe('person property columns on events', () => {
  it('without columns every mode reads the JSON', () => {
    expect(h.stores.events.personColumns.all().size).toBe(0);
    for (const sql of Object.values(baseline.sql)) expect(sql).not.toContain('pmat_');
  });

  it('while existing parts are not yet filled, and after, the answers are the same', async () => {
    const events = h.stores.events;
    // Merges (which run mutations) stopped: the columns exist but no part holds them yet, so the
    // engine computes them from person_properties on read.
    await events.command(`SYSTEM STOP MERGES ${events.table('events')}`);
    try {
      const added = await materializePersonProperties(events, ['plan', 'a.b']);
      expect(added).toEqual([
        { key: 'plan', column: 'pmat_plan', added: true, materializing: true },
        { key: 'a.b', column: 'pmat_a_b', added: true, materializing: true },
      ]);
      expect((await pendingMaterializations(events)).map((p) => p.column).sort()).toEqual([
        'pmat_a_b',
        'pmat_plan',
      ]);
      const during = await runAll();
      expect(during.results).toEqual(baseline.results);
      checkSql(during.sql);
    } finally {
      await events.command(`SYSTEM START MERGES ${events.table('events')}`);
    }
    for (let i = 0; (await pendingMaterializations(events)).length > 0; i++) {
      if (i > 300) throw new Error('materialization did not finish');
      await new Promise((r) => setTimeout(r, 100));
    }
    const [filled] = await events.query<{ n: number }>(
      `SELECT count() AS n FROM system.parts_columns WHERE database = {db:String} AND table = 'events' AND active AND column = 'pmat_plan'`,
      { params: { db: events.database } },
    );
    expect(Number(filled?.n)).toBeGreaterThan(0);
    const after = await runAll();
    expect(after.results).toEqual(baseline.results);
    checkSql(after.sql);
    // Idempotent: asking again adds nothing and starts no new filling.
    expect(await materializePersonProperties(events, ['plan'])).toEqual([
      { key: 'plan', column: 'pmat_plan', added: false, materializing: false },
    ]);
  });

  it('events captured after the column exists: the same with and without it, $set after an event included', async () => {
    await capture(h, h.boot.project_api_key, project, [
      ev('$pageview', 'a1', '11:30:00', { $set: { plan: 'late' } }),
      ev('$pageview', 'd1', '11:31:00', {}),
    ]);
    for (const mode of MODES) {
      for (const q of [...QUERIES, "SELECT count() FROM events WHERE person.properties.plan = 'late'"]) {
        const r = await withAndWithout(q, mode);
        expect(r.with).toEqual(r.without);
      }
    }
    const late = await withAndWithout(
      "SELECT count() FROM events WHERE person.properties.plan = 'late'",
      'person_id_override_properties_on_events',
    );
    expect(late.with).toEqual([[1]]);
    expect(late.sql).toContain('events.pmat_plan');
  });

  it('an unknown key, a deeper chain or another table still reads the JSON', async () => {
    for (const mode of ON_EVENTS) {
      const unknown = await hogql("SELECT count() FROM events WHERE person.properties.nokey = 'x'", mode);
      expect(unknown.results).toEqual([[0]]);
      expect(unknown.clickhouse).toContain('JSONExtractRaw(events.person_properties');
      expect(unknown.clickhouse).not.toContain('pmat_');
      const deep = await hogql(
        'SELECT person.properties.plan.tier AS t FROM events WHERE t IS NOT NULL',
        mode,
      );
      expect(deep.results).toEqual([['x']]);
      expect(deep.clickhouse).not.toContain('pmat_');
      // A key that looks like SQL is only ever a bound value.
      const odd = await hogql("SELECT count() FROM events WHERE person.properties['plan`; --'] = 'x'", mode);
      expect(odd.results).toEqual([[0]]);
      expect(odd.clickhouse).not.toContain('pmat_');
    }
    const persons = await hogql("SELECT count() FROM persons WHERE properties.plan = 'pro'");
    expect(persons.clickhouse).not.toContain('pmat_');
  });

  it('reads the column only in the modes that read person properties from events', async () => {
    const q = "SELECT count() FROM events WHERE person.properties.plan = 'pro'";
    for (const mode of MODES) {
      const out = await hogql(q, mode);
      if (ON_EVENTS.includes(mode)) {
        expect(out.clickhouse).toContain('equals(events.pmat_plan, ');
        expect(out.clickhouse).not.toContain('JSONExtractRaw');
      } else {
        expect(out.clickhouse).not.toContain('pmat_');
      }
      // The team guard stays.
      expect(out.clickhouse).toContain(`equals(events.team_id, ${project})`);
    }
  });

  it('refuses a key whose column name another key already has', async () => {
    await expect(materializePersonProperties(h.stores.events, ['a_b'])).rejects.toThrow(
      'person property "a_b" would use the column pmat_a_b, which already holds "a.b"',
    );
    await expect(materializePersonProperties(h.stores.events, ["it's"])).rejects.toThrow('not allowed');
  });

  it('a node learns of a column another node added at its next refresh', async () => {
    const events = h.stores.events;
    // Another node: its own view of the columns, the same engine.
    const elsewhere = { ...events, personColumns: discoveredPersonColumns(events.query, events.database) };
    await materializePersonProperties(elsewhere, ['company']);
    expect(elsewhere.personColumns.column('company')).toBe('pmat_company');
    expect(events.personColumns.column('company')).toBeUndefined();
    await events.personColumns.refresh();
    expect(events.personColumns.column('company')).toBe('pmat_company');
  });
});

describe('choosing the keys', () => {
  it('names columns as PostHog does', () => {
    expect(personColumnName('email')).toBe('pmat_email');
    expect(personColumnName('$initial_utm_source')).toBe('pmat_$initial_utm_source');
    expect(personColumnName('Company Name')).toBe('pmat_Company_Name');
  });

  it('MATERIALIZED_PERSON_PROPERTIES: email by default, none when empty, refused clearly', () => {
    expect(loadConfig({}).materializedPersonProperties).toEqual(['email']);
    expect(loadConfig({ MATERIALIZED_PERSON_PROPERTIES: '' }).materializedPersonProperties).toEqual([]);
    expect(
      loadConfig({ MATERIALIZED_PERSON_PROPERTIES: ' email , plan,email,' }).materializedPersonProperties,
    ).toEqual(['email', 'plan']);
    const refused = (value: string) => () => loadConfig({ MATERIALIZED_PERSON_PROPERTIES: value });
    expect(refused('a.b,a-b')).toThrow(ConfigError);
    expect(refused('a.b,a-b')).toThrow(
      'MATERIALIZED_PERSON_PROPERTIES: person properties "a.b" and "a-b" would both use the column pmat_a_b',
    );
    expect(refused('x'.repeat(MAX_PERSON_KEY_LENGTH + 1))).toThrow('longer than 200 characters');
    expect(refused('plan"')).toThrow('not allowed');
  });

  it('checks keys one by one', () => {
    expect(() => checkPersonKeys([''])).toThrow('cannot be empty');
    expect(() => checkPersonKeys(['a\nb'])).toThrow('not allowed');
    expect(() => checkPersonKeys(['a`b'])).toThrow('not allowed');
    expect(() => checkPersonKeys(['a\\b'])).toThrow('not allowed');
    expect(() => checkPersonKeys([' a'])).toThrow('white space');
    expect(checkPersonKeys(['país', '$os', 'Company Name'])).toEqual(['país', '$os', 'Company Name']);
  });
});

function checkSql(sql: Record<string, string>) {
  for (const [name, text] of Object.entries(sql)) {
    const [mode, i] = name.split(' ');
    // poe.properties reads the event row in every mode; person.properties only in the on-events ones.
    if (i === '3') expect(text, name).toContain('events.pmat_plan');
    else if (ON_EVENTS.includes(mode as Mode)) {
      expect(text, name).toContain(i === '4' ? 'events.pmat_a_b' : 'events.pmat_plan');
      expect(text, name).not.toContain('JSONExtractRaw(events.person_properties');
    } else expect(text, name).not.toMatch(/pmat_(plan|a_b)/);
  }
}
