/**
 * The Web analytics page's first load on a warm query cache (issue 32: under 1 s): Chromium opens
 * /web and the clock stops when every tile has its answer on screen (no skeleton left). The floor,
 * in the same run: the same queries (recorded from the page's own requests) answered by plain HTTP
 * from this process, all at once, also from the warm cache; and the console's login page, a page
 * with no query. The ratio is page / queries.
 *
 *   npx tsx bench/web-page.ts [--events 200000] [--runs 15] [--json]
 */
import { parseArgs } from 'node:util';
import { setPasswordByEmail } from '../src/domain/accounts/password-change.js';
import { launchChromium } from '../test/helpers/chromium.js';
import { startHarness } from '../test/helpers/harness.js';
import { median, reporter, table } from './lib.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '200000' }, runs: { type: 'string', default: '15' } },
});
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);
const log = (...a: unknown[]) => console.error(...a);

const h = await startHarness({ BURROW_ADMIN_EMAIL: 'bench@example.com', INGEST_BATCH_DELAY_MS: '20' });
await setPasswordByEmail(h.deps, 'bench@example.com', 'bench password');
const base = await h.app.listen({ host: '127.0.0.1', port: 0 });

// Web traffic over the last 7 days (the page's default range): sessions of 1-6 pageviews with a
// skewed mix of paths, referrers, campaigns, browsers, countries, plus web vitals and outbound clicks.
const pick = <T>(xs: T[], r: number) => xs[Math.floor(r ** 2 * xs.length)]!;
let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const PATHS = ['/', '/pricing', '/docs', '/blog', '/signup', '/about', '/changelog', '/careers'].concat(
  Array.from({ length: 60 }, (_, i) => `/blog/post-${i}`),
);
const REFERRERS = ['$direct', 'www.google.com', 't.co', 'news.ycombinator.com', 'www.bing.com', 'github.com'];
const COUNTRIES = ['US', 'DE', 'FR', 'GB', 'IN', 'BR', 'JP', 'CA', 'NL', 'ES'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
const OSES = ['Windows', 'Mac OS X', 'iOS', 'Android', 'Linux'];
const now = Date.now();
const events: Record<string, unknown>[] = [];
for (let s = 0; events.length < EVENTS; s++) {
  const person = `p${Math.floor(rand() * (EVENTS / 8))}`;
  const start = now - Math.floor(rand() * 7 * 86_400_000);
  const common = {
    $session_id: `s${s}`,
    $referring_domain: pick(REFERRERS, rand()),
    ...(rand() < 0.2
      ? { utm_source: pick(['newsletter', 'twitter', 'ads'], rand()), utm_medium: 'email' }
      : {}),
    $geoip_country_code: pick(COUNTRIES, rand()),
    $browser: pick(BROWSERS, rand()),
    $os: pick(OSES, rand()),
    $device_type: rand() < 0.6 ? 'Desktop' : 'Mobile',
  };
  const views = 1 + Math.floor(rand() * rand() * 6);
  for (let v = 0; v < views; v++) {
    const path = pick(PATHS, rand());
    const props = { ...common, $pathname: path, $current_url: `https://site.example${path}` };
    const timestamp = new Date(start + v * 20_000).toISOString();
    events.push({ event: '$pageview', distinct_id: person, timestamp, properties: props });
    if (v === 0 && rand() < 0.3)
      events.push({
        event: '$web_vitals',
        distinct_id: person,
        timestamp,
        properties: { ...props, $web_vitals_LCP_value: 500 + rand() * 5000 },
      });
  }
  if (rand() < 0.05)
    events.push({
      event: '$autocapture',
      distinct_id: person,
      timestamp: new Date(start + views * 20_000).toISOString(),
      properties: { ...common, $event_type: 'click', $external_click_url: 'https://github.com/burrow' },
    });
}
log(`sending ${events.length} events...`);
for (let i = 0; i < events.length; i += 1000) {
  const res = await fetch(`${base}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: h.boot.project_api_key, batch: events.slice(i, i + 1000) }),
  });
  if (!res.ok) throw new Error(`batch: ${res.status} ${await res.text()}`);
}
// A goal for the Goals tile.
await fetch(`${base}/api/projects/${h.boot.project_id}/actions/`, {
  method: 'POST',
  headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Signed up', steps: [{ event: '$pageview', url: '/signup' }] }),
});
// Until the events are all readable (ingestion batches them).
const count = async () => {
  const res = await fetch(`${base}/api/projects/${h.boot.project_id}/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events' },
      refresh: 'force_blocking',
    }),
  });
  return Number(((await res.json()) as { results: number[][] }).results[0]?.[0]);
};
while ((await count()) < events.length) await new Promise((r) => setTimeout(r, 200));

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
const page = await context.newPage();
await page.goto(`${base}/login`);
await page.getByLabel('Email').fill('bench@example.com');
await page.getByLabel('Password').fill('bench password');
await page.getByRole('button', { name: 'Log in' }).click();
await page.waitForURL(`${base}/`);

/** Every tile has its answer: the overview is there and no skeleton is left. */
const allTiles = () =>
  page.waitForFunction(
    () => {
      const d = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } })
        .document;
      return (
        d.querySelectorAll('.wa .wa-tile').length > 0 && d.querySelectorAll('.wa .skeleton').length === 0
      );
    },
    null,
    { timeout: 120_000, polling: 'raf' },
  );

// The queries the page makes, as it sends them (bodies recorded), and every status it gets.
const sent = new Map<string, string>();
const statuses: number[] = [];
page.on('request', (r) => {
  if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/query/')) {
    const body = r.postData() ?? '';
    if (!body.includes('INTERVAL 5 MINUTE')) sent.set(body, r.url()); // not the live count (force_blocking)
  }
});
page.on('response', (r) => {
  if (new URL(r.url()).pathname.endsWith('/query/')) statuses.push(r.status());
});

// Cold: fills the query cache.
let t = performance.now();
await page.goto(`${base}/web`);
await allTiles();
const coldMs = performance.now() - t;
const cold429 = statuses.filter((s) => s === 429).length;
log(`cold load ${coldMs.toFixed(0)} ms, ${sent.size} queries, ${cold429} answered 429`);

const pageMs: number[] = [];
const staticMs: number[] = [];
const httpMs: number[] = [];
const queries = [...sent];
// The console's shell with no query: the login page, in a context with no session.
const anon = await (await browser.newContext()).newPage();
statuses.length = 0;
for (let i = 0; i < RUNS; i++) {
  t = performance.now();
  await page.goto(`${base}/web`);
  await allTiles();
  pageMs.push(performance.now() - t);

  t = performance.now();
  await anon.goto(`${base}/login`);
  await anon.getByRole('button', { name: 'Log in' }).waitFor();
  staticMs.push(performance.now() - t);

  t = performance.now();
  await Promise.all(
    queries.map(async ([body, url]) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
        body,
      });
      if (!res.ok) throw new Error(`query: ${res.status}`);
      await res.arrayBuffer();
    }),
  );
  httpMs.push(performance.now() - t);
}
const warm429 = statuses.filter((s) => s === 429).length;
await browser.close();
await h.close();

const pageP50 = median(pageMs);
const httpP50 = median(httpMs);
log(`\n${events.length} events over 7 days; ${queries.length} queries on the page; ${RUNS} runs\n`);
log(
  table([
    { measure: '/web, every tile on screen, warm cache (ms)', p50: pageP50, max: Math.max(...pageMs) },
    { measure: 'the same queries by plain HTTP, at once (ms)', p50: httpP50, max: Math.max(...httpMs) },
    {
      measure: 'console login page, no query (ms)',
      p50: median(staticMs),
      max: Math.max(...staticMs),
    },
    { measure: '/web cold cache (ms)', p50: coldMs, max: coldMs },
  ]),
);
log(`ratio page / queries: ${(pageP50 / httpP50).toFixed(2)}; 429s: cold ${cold429}, warm ${warm429}`);
log('target: < 1000 ms warm');
const report = reporter('web-page');
report({
  case: `Web analytics page, ${events.length} events, warm cache`,
  metric: 'every tile on screen p50',
  value: pageP50,
  unit: 'ms',
  ratio: pageP50 / httpP50,
  against: "the page's queries answered by plain HTTP from the same process",
  goal: { op: '<', value: 1000, issue: 32 },
});
report({
  case: `Web analytics page, ${events.length} events, cold cache`,
  metric: 'every tile on screen',
  value: coldMs,
  unit: 'ms',
});
report({
  case: 'Web analytics page, 429 answers',
  metric: 'count',
  value: cold429 + warm429,
  unit: 'responses',
});
