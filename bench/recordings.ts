/**
 * Recording lists and playlist lists through the API vs the bare query on the same store, same run.
 * Usage: npx tsx bench/recordings.ts [--sessions 100000 --rounds 15]   (DATABASE_URL for PostgreSQL)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { parseRecordingFilters } from '../src/domain/recordings/filters.js';
import { countDuePlaylists } from '../src/domain/recordings/playlist-counter.js';
import { recordingsByIds, searchSessionIds } from '../src/domain/recordings/query.js';
import { toSearch } from '../src/domain/recordings/search.js';
import { buildApp } from '../src/server/app.js';
import { createLogger } from '../src/server/logger.js';
import { bootstrapInstallation, openStores } from '../src/server/runtime.js';
import { formatTimestamp } from '../src/store/events/insert.js';
import { findTeam } from '../src/store/meta/teams.js';
import { insertEvents, insertReplayEvents } from '../test/helpers/events-insert.js';
import { median, table } from './lib.js';

const { values } = parseArgs({
  options: { sessions: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '15' } },
});
const sessions = Number(values.sessions);
const rounds = Number(values.rounds);

const dataDir = mkdtempSync(join(tmpdir(), 'burrow-bench-rec-'));
const config = loadConfig({
  BURROW_DATA_DIR: dataDir,
  DATABASE_URL: process.env.DATABASE_URL,
  LOG_LEVEL: 'silent',
  PLAYLIST_COUNT_INTERVAL_MS: '0',
});
const stores = await openStores(config);
await bootstrapInstallation(config, stores, createLogger('silent'));
const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
const teamId = boot.project_id as number;
const team = teamId;
const app = await buildApp({ config, meta: stores.meta, events: stores.events, bus: stores.bus });
await app.ready();
const deps = { meta: stores.meta.db, events: stores.events, now: () => new Date() };

// Sessions over the last three days; every tenth has a 'purchase' event.
const now = Date.now();
const replay = [];
const events = [];
for (let i = 0; i < sessions; i++) {
  const start = now - Math.floor((i / sessions) * 70 * 3_600_000) - 60_000;
  const duration = (i * 7919) % 600_000;
  replay.push({
    team_id: team,
    session_id: `s${i}`,
    distinct_id: `u${i % 5000}`,
    first_timestamp: formatTimestamp(start),
    last_timestamp: formatTimestamp(start + duration),
    first_url: 'https://bench.test/',
    urls: ['https://bench.test/'],
    click_count: i % 13,
    active_milliseconds: Math.floor(duration / 3),
    console_error_count: i % 17 === 0 ? 1 : 0,
  });
  if (i % 10 === 0) {
    events.push({
      uuid: crypto.randomUUID(),
      event: 'purchase',
      properties: JSON.stringify({ amount: i % 100, $session_id: `s${i}` }),
      timestamp: formatTimestamp(start + 1000),
      team_id: team,
      distinct_id: `u${i % 5000}`,
    });
  }
}
await insertReplayEvents(stores.events, replay);
await insertEvents(stores.events, events);

/** Medians of each, run in turn so that other load on the machine hits them alike. */
async function each(fns: Array<() => Promise<unknown>>): Promise<number[]> {
  for (const fn of fns) await fn();
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    for (const [j, fn] of fns.entries()) {
      const t = performance.now();
      await fn();
      times[j]?.push(performance.now() - t);
    }
  }
  return times.map(median);
}
const api = (url: string) => async () => {
  const res = await app.inject({
    method: 'GET',
    url,
    headers: { authorization: `Bearer ${boot.personal_api_key}` },
  });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
};
const sre = stores.events.table('session_replay_events');
const raw =
  (having: string, extra = '') =>
  async () =>
    stores.events.query(
      `SELECT session_id, min(min_first_timestamp) AS start_time, dateDiff('second', start_time, max(max_last_timestamp)) AS duration
     FROM ${sre} WHERE team_id = {t:Int64} ${extra} GROUP BY session_id
     HAVING start_time >= now64() - INTERVAL 3 DAY ${having} ORDER BY start_time DESC LIMIT 51`,
      { params: { t: team } },
    );
const base = `/api/environments/${team}/session_recordings/?`;
const enc = (v: unknown) => encodeURIComponent(JSON.stringify(v));
const rows: Array<Record<string, string | number>> = [];
/** The SQL Burrow generates for the same request, run straight on the store. */
const generated = (query: object) => async () => {
  const team = (await findTeam(stores.meta.db, teamId))!;
  const search = await toSearch(deps, team, parseRecordingFilters(query, '').query, { limit: 51, offset: 0 });
  const ids = await searchSessionIds(stores.events, search);
  await recordingsByIds(stores.events, teamId, ids.slice(0, 50));
};
const compare = async (name: string, url: string, query: object | null, bare: () => Promise<unknown>) => {
  const fns = query ? [api(url), generated(query), bare] : [api(url), bare];
  const times = await each(fns);
  const [a = 0, b = 1] = [times[0], times[times.length - 1]];
  const own = query ? (times[1] ?? 0) : '-';
  rows.push({ case: name, 'API ms': a, 'its SQL ms': own, 'minimal SQL ms': b, 'API / minimal': a / b });
};
const long = [{ type: 'recording', key: 'duration', value: 300, operator: 'gt' }];
const purchase = [{ id: 'purchase', type: 'events' }];
await compare('recordings, default (-3d)', base, {}, raw(''));
await compare(
  'recordings, duration > 300 s',
  `${base}having_predicates=${enc(long)}`,
  { having_predicates: long },
  raw('AND duration > 300'),
);
await compare(
  "recordings with a 'purchase' event",
  `${base}events=${enc(purchase)}`,
  { events: purchase },
  raw(
    `AND session_id IN (SELECT \`$session_id\` FROM ${stores.events.table('events')} WHERE team_id = {t:Int64} AND event = 'purchase')`,
  ),
);

// 100 saved filters with stored counts: listing them reads the metadata store only.
const playlists = `/api/environments/${team}/session_recording_playlists/`;
for (let i = 0; i < 100; i++) {
  await app.inject({
    method: 'POST',
    url: playlists,
    headers: { authorization: `Bearer ${boot.personal_api_key}` },
    payload: {
      type: 'filters',
      filters: { having_predicates: [{ type: 'recording', key: 'duration', value: i * 5, operator: 'gt' }] },
    },
  });
}
const t = performance.now();
await countDuePlaylists(
  { meta: stores.meta.db, events: stores.events, now: () => new Date() },
  { maxAgeMs: 3_600_000, batch: 100 },
);
const countAll = performance.now() - t;
await compare('100 playlists (counted), list', `${playlists}?limit=100`, null, async () =>
  stores.meta.db
    .selectFrom('session_recording_playlists')
    .selectAll()
    .where('team_id', '=', team)
    .limit(100)
    .execute(),
);

console.log(
  `${sessions} recordings, ${events.length} events; median of ${rounds}; metadata on ${stores.meta.dialect.name}\n`,
);
console.log(table(rows));
console.log(`\nOne background pass counting 100 saved filters: ${countAll.toFixed(0)} ms`);
await app.close();
await stores.close();
rmSync(dataDir, { recursive: true, force: true });
