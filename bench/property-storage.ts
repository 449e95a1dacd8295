/**
 * How to store event properties so that HogQL's `properties.$x` is cheap: the PostHog way (a JSON
 * String read with JSONExtract*), materialized columns for hot keys, or ClickHouse's native JSON.
 * Also measures what FINAL (the events table's dedup) costs. Embedded chDB only.
 * Usage: npx tsx bench/property-storage.ts [-- --rows 10000000 --runs 5 --dir /tmp/x]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openEventsStore } from '../src/store/events/store.js';
import { median, table } from './lib.js';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '5' },
    dir: { type: 'string' },
  },
});
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);
const BATCH = 100_000;
const dataDir = values.dir ?? mkdtempSync(join(tmpdir(), 'burrow-bench-props-'));
const store = await openEventsStore({ dataDir, database: 'bench_props' });
const t = (name: string) => store.table(name);

// Deterministic generator (mulberry32) so that runs are comparable.
let seed = 42;
function rand(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)] as T;
/** Zipf-ish: low indexes are much more frequent. */
const skewed = <T>(a: readonly T[]): T => a[Math.floor(a.length * rand() ** 3)] as T;

const EVENTS = ['$pageview', '$autocapture', '$pageleave', '$identify', '$rageclick', '$web_vitals'].concat(
  Array.from({ length: 44 }, (_, i) => `custom_event_${i}`),
);
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Microsoft Edge', 'Opera', 'Samsung Internet', 'Chrome iOS'];
const OSES = ['Windows', 'Mac OS X', 'iOS', 'Android', 'Linux', 'Chrome OS'];
const DEVICES = ['Desktop', 'Mobile', 'Tablet'];
const HOSTS = ['app.example.com', 'www.example.com', 'docs.example.com'];
const PATHS = [
  '/',
  '/pricing',
  '/signup',
  '/login',
  '/docs/getting-started',
  '/blog/launch-week',
  '/features',
]
  .concat(Array.from({ length: 200 }, (_, i) => `/app/project/${i}/dashboard`))
  .concat(Array.from({ length: 100 }, (_, i) => `/docs/page-${i}`));
const REFERRERS = ['$direct', 'www.google.com', 'news.ycombinator.com', 't.co', 'www.bing.com', 'github.com'];
const NOW = Date.UTC(2025, 5, 30);
const DAY = 86_400_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const ts = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000`;
};
const hex = (n: number, w: number) => Math.floor(n).toString(16).padStart(w, '0').slice(-w);
const uuid = (i: number) =>
  `${hex(i / 65536, 8)}-${hex(i, 4)}-7${hex(rand() * 4096, 3)}-8${hex(rand() * 4096, 3)}-${hex(rand() * 2 ** 24, 6)}${hex(rand() * 2 ** 24, 6)}`;

function makeRow(i: number) {
  const time = NOW - Math.floor(rand() * 35 * DAY);
  const userN = Math.floor(rand() * 100_000);
  const session = `0190${hex(userN, 4)}-${hex(time / 3_600_000, 4)}-7000-8000-${hex(userN * 7919, 12)}`;
  const host = skewed(HOSTS);
  const path = skewed(PATHS);
  const props: Record<string, unknown> = {
    $browser: skewed(BROWSERS),
    $browser_version: 100 + Math.floor(rand() * 30),
    $os: skewed(OSES),
    $device_type: skewed(DEVICES),
    $current_url: `https://${host}${path}${rand() < 0.2 ? '?ref=nav' : ''}`,
    $host: host,
    $pathname: path,
    $referring_domain: skewed(REFERRERS),
    $session_id: session,
    $lib: 'web',
    $lib_version: '1.449.2',
    $screen_width: pick([1920, 1440, 390, 1280]),
    $screen_height: pick([1080, 900, 844, 800]),
    $insert_id: hex(rand() * 2 ** 32, 8),
    plan: { tier: pick(['free', 'pro', 'enterprise']), seats: Math.floor(rand() * 50), trial: rand() < 0.1 },
  };
  if (rand() < 0.15) props.utm_source = pick(['google', 'newsletter', 'twitter']);
  return {
    uuid: uuid(i),
    event: skewed(EVENTS),
    properties: JSON.stringify(props),
    timestamp: ts(time),
    team_id: rand() < 0.9 ? 1 : 2,
    distinct_id: `user-${userN}`,
    $session_id: session,
    inserted_at: ts(NOW),
  };
}

const COLUMNS = `uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), team_id Int64,
  distinct_id String, \`$session_id\` String, inserted_at DateTime64(6, 'UTC')`;
const ENGINE = `ENGINE = ReplacingMergeTree(inserted_at) PARTITION BY toYYYYMM(timestamp)
  ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))`;
const HOT = ['$browser', '$os', '$device_type', '$current_url', '$pathname', '$referring_domain'];
const matColumns = HOT.map(
  (k) => `\`mat_${k}\` String MATERIALIZED replaceRegexpAll(JSONExtractRaw(properties, '${k}'), '^"|"$', '')`,
).join(',\n  ');
// The exact HogQL expression, stored: the compiler prints the bare column, same semantics by construction.
const matNullable = HOT.map(
  (k) =>
    `\`mat_${k}\` Nullable(String) MATERIALIZED replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, '${k}'), ''), 'null'), '^"|"$', '')`,
).join(',\n  ');

for (const name of ['raw', 'mat', 'matn', 'js']) await store.command(`DROP TABLE IF EXISTS ${t(name)}`);
await store.command(`CREATE TABLE ${t('raw')} (${COLUMNS}) ${ENGINE}`);
await store.command(`CREATE TABLE ${t('mat')} (${COLUMNS}, ${matColumns}) ${ENGINE}`);
await store.command(`CREATE TABLE ${t('matn')} (${COLUMNS}, ${matNullable}) ${ENGINE}`);
await store.command(`CREATE TABLE ${t('js')} (${COLUMNS}, pj JSON MATERIALIZED properties::JSON) ${ENGINE}`);

const secs = (ms: number) => (ms / 1000).toFixed(1);
console.log(`generating ${ROWS} rows into chDB in ${BATCH}-row batches (dir ${dataDir})`);
const started = performance.now();
let genMs = 0;
const retries: object[] = [];
let pending: Promise<void> = Promise.resolve();
for (let done = 0; done < ROWS; done += BATCH) {
  const g = performance.now();
  const rows: object[] = [];
  for (let i = done; i < Math.min(ROWS, done + BATCH); i++) rows.push(makeRow(i));
  // 0.5% of events are sent again (SDK retries) in a later batch: FINAL must drop them.
  for (let i = 0; i < rows.length; i += 200) retries.push(rows[i] as object);
  genMs += performance.now() - g;
  // Generate the next batch while the engine writes this one.
  await pending;
  pending = store.insert('raw', retries.length >= BATCH ? rows.concat(retries.splice(0)) : rows);
  if ((done / BATCH) % 10 === 9) {
    const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
    console.log(`  ${done + BATCH} rows, ${secs(performance.now() - started)} s, RSS ${rss} MB`);
  }
}
await pending;
await store.insert('raw', retries);
const loadMs = performance.now() - started;
console.log(`loaded in ${secs(loadMs)} s (JS generation ${secs(genMs)} s)`);

// The same data into the other layouts, engine side; the difference is the ingestion cost.
const copyMs: Record<string, number> = { raw: 0 };
for (const name of ['mat', 'matn', 'js']) {
  const s = performance.now();
  await store.command(`INSERT INTO ${t(name)} SELECT * FROM ${t('raw')}`);
  copyMs[name] = performance.now() - s;
  console.log(`copied into ${name} in ${secs(copyMs[name] as number)} s`);
}
const rawCopy = performance.now();
await store.command(`CREATE TABLE ${t('raw2')} (${COLUMNS}) ${ENGINE}`);
await store.command(`INSERT INTO ${t('raw2')} SELECT * FROM ${t('raw')}`);
copyMs.raw = performance.now() - rawCopy;
await store.command(`DROP TABLE ${t('raw2')}`);

async function time(sql: string): Promise<{ ms: number; result: string }> {
  let result = '';
  await store.query(sql); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    const r = await store.query(sql);
    ms.push(performance.now() - s);
    result = JSON.stringify(r).slice(0, 60);
  }
  return { ms: median(ms), result };
}

const since = `timestamp >= toDateTime64('${ts(NOW - 30 * DAY)}', 6, 'UTC')`;
const hogql = (col: string, key: string) =>
  `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${col}, '${key}'), ''), 'null'), '^"|"$', '')`;
const layouts: Array<[string, string, (k: string) => string]> = [
  ['String + JSONExtractString', 'raw', (k) => `JSONExtractString(properties, '${k}')`],
  ['String + HogQL JSONExtractRaw form', 'raw', (k) => hogql('properties', k)],
  ['materialized String, nullIf-wrapped', 'mat', (k) => `nullIf(nullIf(\`mat_${k}\`, ''), 'null')`],
  ['materialized Nullable(String), bare', 'matn', (k) => `\`mat_${k}\``],
  ['native JSON (typed subcolumn)', 'js', (k) => `pj.\`${k}\`.:String`],
];
const results: Array<Record<string, string | number>> = [];
let base = { a: 0, b: 0 };
for (const [label, tbl, expr] of layouts) {
  const from = `${t(tbl)} WHERE team_id = 1 AND ${since}`;
  const a = await time(
    `SELECT ${expr('$browser')} AS b, count() AS c FROM ${from} GROUP BY b ORDER BY c DESC`,
  );
  const b = await time(`SELECT count() AS c FROM ${from} AND ${expr('$current_url')} LIKE '%/pricing%'`);
  if (!base.a) base = { a: a.ms, b: b.ms };
  results.push({
    layout: label,
    'breakdown ms': Math.round(a.ms),
    'breakdown ratio': a.ms / base.a,
    'filter ms': Math.round(b.ms),
    'filter ratio': b.ms / base.b,
  });
  console.log(`  ${label}: ${a.result} | ${b.result}`);
}

// What deduplication at read time costs (the events table is a ReplacingMergeTree).
const dedup: Array<Record<string, string | number>> = [];
const mat = (k: string) => `nullIf(nullIf(\`mat_${k}\`, ''), 'null')`;
const shapes: Array<[string, (f: string) => string]> = [
  ['count 30 days', (f) => `SELECT count() AS c FROM ${t('raw')} ${f} WHERE team_id = 1 AND ${since}`],
  [
    'daily trend 30 days',
    (f) =>
      `SELECT toDate(timestamp) d, count() c FROM ${t('raw')} ${f} WHERE team_id = 1 AND ${since} AND event = '$pageview' GROUP BY d ORDER BY d`,
  ],
  [
    'breakdown by mat_$browser',
    (f) =>
      `SELECT ${mat('$browser')} b, count() c FROM ${t('mat')} ${f} WHERE team_id = 1 AND ${since} GROUP BY b`,
  ],
];
for (const [label, sql] of shapes) {
  const plain = await time(sql(''));
  const final = await time(sql('FINAL'));
  dedup.push({
    query: label,
    'no FINAL ms': Math.round(plain.ms),
    'FINAL ms': Math.round(final.ms),
    ratio: final.ms / plain.ms,
  });
  console.log(`  ${label}: ${plain.result} | ${final.result}`);
}

const sizes = await store.query<Record<string, string | number>>(
  `SELECT table, round(sum(data_compressed_bytes) / 1048576) AS "compressed MB",
     round(sum(data_uncompressed_bytes) / 1048576) AS "uncompressed MB", count() AS parts
   FROM system.parts WHERE database = 'bench_props' AND active AND table IN ('raw', 'mat', 'matn', 'js')
   GROUP BY table ORDER BY table`,
);
for (const s of sizes) s['insert-select s'] = secs(copyMs[s.table as string] ?? 0);

console.log(`\n${ROWS} events (+0.5% retried duplicates), ${RUNS} runs each, median; chDB ${dataDir}\n`);
console.log(table(results));
console.log('');
console.log(table(dedup));
console.log('');
console.log(table(sizes));
await store.close();
if (!values.dir) rmSync(dataDir, { recursive: true, force: true });
