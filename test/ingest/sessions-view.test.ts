import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sessionsTable } from '../../src/store/events/migrations/0003_sessions.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';

const dataDir = mkdtempSync(join(tmpdir(), 'burrow-sessview-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Properties whose keys JSONExtractString and a tuple extraction could read differently. */
const PROPS: Array<Record<string, unknown> | string> = [
  { $current_url: 'https://a.io/x', $pathname: '/x', utm_source: 'news', utm_medium: 'mail' },
  { $current_url: 'https://a.io/y', $pathname: 5, $referring_domain: null, utm_campaign: { a: [1, true] } },
  { $current_url: '', $pathname: '/no-url' },
  { $current_url: null, utm_term: 'ignored without url' },
  { $current_url: 'https://a.io/é?q="1"\n', utm_content: 1.5e3, utm_source: false },
  '{"$current_url":"https://a.io/first","$current_url":"https://a.io/second","$pathname":"/dup"}',
  'not json at all',
  {},
];

const SELECT = `SELECT session_id, any(distinct_id) AS d, min(min_timestamp) AS start, max(max_timestamp) AS end,
  max(max_inserted_at) AS ins, arraySort(groupUniqArrayArray(urls)) AS urls,
  argMinMerge(entry_url) AS eu, argMinMerge(entry_pathname) AS ep, argMinMerge(entry_referring_domain) AS er,
  argMinMerge(entry_utm_source) AS us, argMinMerge(entry_utm_medium) AS um, argMinMerge(entry_utm_campaign) AS uc,
  argMinMerge(entry_utm_term) AS ut, argMinMerge(entry_utm_content) AS un,
  argMaxMerge(exit_url) AS xu, argMaxMerge(exit_pathname) AS xp,
  sum(pageview_count) AS pv, sum(autocapture_count) AS ac, sum(screen_count) AS sc, sum(event_count) AS ec`;

describe('sessions view: one tuple extraction (0005) reads like per-key JSONExtractString (0003)', () => {
  it('gives the same sessions for the same events', async () => {
    const store: EventsStore = await openEventsStore({ dataDir, database: 'sv' });
    try {
      // 0003's view, as first applied, on a copy of events.
      await store.command(`CREATE TABLE ${store.table('events_old')} AS ${store.table('events')}`);
      const old = { ...store, table: (name: string) => store.table(`${name}_old`) };
      for (const sql of sessionsTable.statements(old)) await store.command(sql);

      // Every property set in each of the sessions, in varying order, as entry and as exit.
      const rows = PROPS.flatMap((props, i) =>
        [0, 1, 2].map((s) => ({
          uuid: `0190b6a4-0000-7000-8000-${String(i * 10 + s).padStart(12, '0')}`,
          event: ['$pageview', '$autocapture', '$screen', 'other'][(i + s) % 4],
          properties: typeof props === 'string' ? props : JSON.stringify(props),
          timestamp: `2025-06-01 10:${String((i * 7 + s * 13) % 60).padStart(2, '0')}:00.000000`,
          team_id: 1,
          distinct_id: `d${s}`,
          $session_id: `S${s}`,
          inserted_at: '2025-06-01 11:00:00.000000',
        })),
      );
      await store.insert('events', rows);
      await store.insert('events_old', rows);
      const read = (table: string) =>
        store.query(`${SELECT} FROM ${table} GROUP BY team_id, session_id ORDER BY session_id`);
      const fresh = await read(store.table('sessions'));
      expect(fresh).toHaveLength(3);
      expect(fresh).toEqual(await read(store.table('sessions_old')));
      // And by hand: the non-empty urls, the first of a duplicated key winning.
      expect((fresh[0] as { urls: string[] }).urls).toEqual([
        'https://a.io/first',
        'https://a.io/x',
        'https://a.io/y',
        'https://a.io/é?q="1"\n',
      ]);
    } finally {
      await store.close();
    }
  });

  // A plain database name takes chDB's raw insert; another one the client's path.
  it.each(['sv_encoded', 'sv-encoded'])(
    'encoded rows keep properties given as JSON objects as their exact text (%s)',
    async (database) => {
      const store = await openEventsStore({ dataDir, database });
      try {
        const props = {
          $current_url: 'https://a.io/é?q="1"\n',
          n: 1.5,
          nested: { a: [1, null, true] },
          e: '',
        };
        const line = JSON.stringify({
          uuid: '0190b6a4-0000-7000-8000-000000000001',
          event: 'e',
          properties: props,
          person_properties: { plan: 'pro' },
          timestamp: '2025-06-01 10:00:00.000000',
          team_id: 1,
          distinct_id: 'd',
        });
        await store.insertEncoded('events', `${line}\n`);
        const [row] = await store.query<{ properties: string; person_properties: string; url: string }>(
          `SELECT properties, person_properties, \`mat_$current_url\` AS url FROM ${store.table('events')}`,
        );
        expect(row).toEqual({
          properties: JSON.stringify(props),
          person_properties: '{"plan":"pro"}',
          // HogQL's property expression: the raw JSON token without its quotes, escapes kept.
          url: 'https://a.io/é?q=\\"1\\"\\n',
        });
      } finally {
        await store.close();
      }
    },
  );
});
