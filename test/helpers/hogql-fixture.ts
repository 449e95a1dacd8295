import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompileOptions, compileSelect } from '../../src/hogql/compile.js';
import { loadParser } from '../../src/hogql/parse.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';
import type { EventRow } from './events-insert.js';
import {
  insertDistinctIds,
  insertEvents,
  insertGroups,
  insertPersons,
  insertReplayEvents,
} from './events-insert.js';

/**
 * A fixed dataset for HogQL tests, in a real chDB: team 1 (the querying team) and team 2 (the
 * victim every adversarial query tries to read). Team 2's rows carry the marker `SECRET` in
 * every string column a query could reach, so a leak shows up in any result.
 */
export const TEAM = 1;
export const OTHER_TEAM = 2;
export const SECRET = 'SECRET';

export const P1 = '0190b6a4-0000-7000-8000-000000000001';
export const P2 = '0190b6a4-0000-7000-8000-000000000002';
export const P3 = '0190b6a4-0000-7000-8000-000000000003';
export const P_OTHER = '0190b6a4-0000-7000-8000-0000000000ff';

let n = 0;
const uuid = () => `0190b6a4-1111-7000-8000-${String(++n).padStart(12, '0')}`;

function ev(team: number, over: Partial<EventRow>): EventRow {
  return {
    uuid: uuid(),
    event: '$pageview',
    properties: '{}',
    timestamp: '2025-01-15 10:00:00.000000',
    team_id: team,
    distinct_id: 'd1',
    ...over,
  };
}

/** Team 1: 3 persons, 10 events in two sessions; team 2: the secret rows. */
export function fixtureEvents(): EventRow[] {
  const props = (o: object) => JSON.stringify(o);
  return [
    ev(TEAM, {
      distinct_id: 'd1',
      person_id: P1,
      properties: props({
        $session_id: 's1',
        $browser: 'Chrome',
        $current_url: 'https://a.com/1',
        plan: 'pro',
        n: 10,
        arr: [1, 2, { x: 'y' }],
        obj: { a: { b: 'deep' } },
        empty: '',
        nul: null,
        flag: true,
      }),
      timestamp: '2025-01-15 10:00:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd1',
      person_id: P1,
      event: 'signup',
      properties: props({ $session_id: 's1', $browser: 'Chrome', plan: 'pro', n: 5 }),
      timestamp: '2025-01-15 10:05:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd1b',
      person_id: P1,
      properties: props({ $session_id: 's1', $browser: 'Chrome', $current_url: 'https://a.com/2' }),
      timestamp: '2025-01-15 10:10:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd2',
      person_id: P2,
      properties: props({
        $session_id: 's2',
        $browser: 'Firefox',
        $current_url: 'https://b.com/',
        plan: 'free',
      }),
      timestamp: '2025-01-16 23:30:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd2',
      person_id: P2,
      event: 'purchase',
      properties: props({ $session_id: 's2', $browser: 'Firefox', amount: 42.5 }),
      timestamp: '2025-01-16 23:45:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd3',
      person_id: P3,
      properties: props({ $browser: 'Safari' }),
      timestamp: '2025-03-30 00:30:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd3',
      person_id: P3,
      properties: props({ $browser: 'Safari' }),
      timestamp: '2025-03-30 01:30:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd3',
      person_id: P3,
      event: 'signup',
      properties: props({}),
      timestamp: '2025-03-30 02:30:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'anon',
      person_id: '0190b6a4-0000-7000-8000-0000000000aa',
      properties: props({ $browser: 'Chrome' }),
      timestamp: '2025-02-01 12:00:00.000000',
    }),
    ev(TEAM, {
      distinct_id: 'd2',
      person_id: P2,
      $group_0: 'acme',
      properties: props({}),
      event: 'group_event',
      timestamp: '2025-02-02 12:00:00.000000',
    }),
    ev(OTHER_TEAM, {
      distinct_id: SECRET,
      person_id: P_OTHER,
      event: SECRET,
      $group_0: SECRET,
      properties: props({
        $session_id: SECRET,
        $elements_chain: SECRET,
        $browser: SECRET,
        plan: SECRET,
        $current_url: SECRET,
      }),
    }),
    ev(OTHER_TEAM, {
      distinct_id: 'd1',
      person_id: P_OTHER,
      event: SECRET,
      properties: props({ $session_id: 's1', $browser: SECRET }),
    }),
  ];
}

export async function loadFixture(store: EventsStore): Promise<void> {
  await insertEvents(store, fixtureEvents());
  const person = (id: string, team: number, properties: object, version = 0) => ({
    id,
    team_id: team,
    properties: JSON.stringify(properties),
    is_identified: 1 as const,
    created_at: '2025-01-01 00:00:00.000',
    version,
  });
  await insertPersons(store, [
    person(P1, TEAM, { email: 'one@a.com', name: 'old' }, 0),
    person(P1, TEAM, { email: 'one@a.com', name: 'One' }, 1),
    person(P2, TEAM, { email: 'two@b.com' }),
    person(P3, TEAM, { email: null }),
    person(P_OTHER, OTHER_TEAM, { email: SECRET }),
  ]);
  const pdi = (distinct_id: string, person_id: string, team = TEAM) => ({
    team_id: team,
    distinct_id,
    person_id,
    version: 0,
  });
  await insertDistinctIds(store, [
    pdi('d1', P1),
    pdi('d1b', P1),
    pdi('d2', P2),
    pdi('d3', P3),
    pdi(SECRET, P_OTHER, OTHER_TEAM),
    pdi('d1', P_OTHER, OTHER_TEAM),
  ]);
  await insertGroups(store, [
    {
      team_id: TEAM,
      group_type_index: 0,
      group_key: 'acme',
      group_properties: JSON.stringify({ industry: 'tools' }),
      created_at: '2025-01-01 00:00:00.000000',
      version: 0,
    },
    {
      team_id: OTHER_TEAM,
      group_type_index: 0,
      group_key: 'acme',
      group_properties: JSON.stringify({ industry: SECRET }),
      created_at: '2025-01-01 00:00:00.000000',
      version: 0,
    },
  ]);
  await insertReplayEvents(store, [
    {
      team_id: TEAM,
      session_id: 's1',
      distinct_id: 'd1',
      first_timestamp: '2025-01-15 10:00:00.000000',
      last_timestamp: '2025-01-15 10:10:00.000000',
      first_url: 'https://a.com/1',
      click_count: 3,
    },
    {
      team_id: OTHER_TEAM,
      session_id: 's1',
      distinct_id: SECRET,
      first_timestamp: '2025-01-15 10:00:00.000000',
      last_timestamp: '2025-01-15 10:10:00.000000',
      first_url: SECRET,
      click_count: 99,
    },
  ]);
}

export interface HogQLDb {
  store: EventsStore;
  /** Compiles for team 1 (unless overridden) and runs; rows as arrays. */
  run(
    query: string,
    options?: Partial<CompileOptions>,
  ): Promise<{ columns: string[]; rows: unknown[][]; sql: string }>;
  close(): Promise<void>;
}

export async function openHogQLDb(name: string): Promise<HogQLDb> {
  await loadParser();
  const dataDir = mkdtempSync(join(tmpdir(), `burrow-hogql-${name}-`));
  const store = await openEventsStore({ dataDir, database: `hogql_${name}` });
  await loadFixture(store);
  return {
    store,
    async run(query, options = {}) {
      const compiled = compileSelect(query, {
        teamId: TEAM,
        timezone: 'UTC',
        weekStartDay: 0,
        table: (t) => store.table(t),
        ...options,
      });
      const result = await store.queryRows(compiled.sql, { params: compiled.params });
      return { columns: compiled.columns, rows: result.rows, sql: compiled.sql };
    },
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
