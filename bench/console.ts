/**
 * The console's targets (issue 19): initial JavaScript ≤ 250 KB gzipped, first render < 1 s on
 * loopback, a 90-day Trends chart with 5 breakdown series drawn < 100 ms after its data arrives.
 * The chart is compared in the same run with raw uPlot drawing the same arrays on a bare page.
 *
 *   npx tsx bench/console.ts [--runs 15]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { consoleDir } from '../src/api/console.js';
import { setPasswordByEmail } from '../src/domain/accounts/password-change.js';
import { launchChromium } from '../test/helpers/chromium.js';
import { startHarness } from '../test/helpers/harness.js';
import { median, reporter, table } from './lib.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } });
const runs = Number(values.runs);
const dir = consoleDir();

// 1. What the first page load downloads: index.html's entry script, CSS and preloads.
const html = readFileSync(join(dir, 'index.html'), 'utf8');
const initial = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
const sizes = initial.map((path) => {
  const body = readFileSync(join(dir, path));
  return { path, raw: body.length, gzip: gzipSync(body).length };
});
const initialJsGzip = sizes.filter((s) => s.path.endsWith('.js')).reduce((a, s) => a + s.gzip, 0);

const h = await startHarness({ BURROW_ADMIN_EMAIL: 'bench@example.com', INGEST_BATCH_DELAY_MS: '2' });
await setPasswordByEmail(h.deps, 'bench@example.com', 'bench password');
const base = await h.app.listen({ host: '127.0.0.1', port: 0 });

// 90 days of events with a 5-valued property, for the breakdown chart.
const now = Date.now();
const batch = Array.from({ length: 9000 }, (_, i) => ({
  event: '$pageview',
  distinct_id: `u${i % 300}`,
  timestamp: new Date(now - (i % 90) * 86_400_000 - (i % 1000) * 1000).toISOString(),
  properties: { $browser: ['Chrome', 'Firefox', 'Safari', 'Edge', 'Opera'][i % 5] },
}));
await fetch(`${base}/batch/`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
});

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();

// 2. First render: navigation to the login form on screen (cold cache each time), then Home
// logged in, to its first card.
const loginMs: number[] = [];
for (let i = 0; i < runs; i++) {
  const fresh = await browser.newContext();
  const p = await fresh.newPage();
  const t = performance.now();
  await p.goto(`${base}/login`);
  await p.getByRole('button', { name: 'Log in' }).waitFor();
  loginMs.push(performance.now() - t);
  await fresh.close();
}
await page.goto(`${base}/login`);
await page.getByLabel('Email').fill('bench@example.com');
await page.getByLabel('Password').fill('bench password');
await page.getByRole('button', { name: 'Log in' }).click();
await page.waitForURL(`${base}/`);
const homeMs: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  await page.goto(`${base}/`);
  await page.locator('.card h2').first().waitFor();
  homeMs.push(performance.now() - t);
}

// 3. The chart: fetch the TrendsQuery once, then draw it in the console's Chart (through the
// Insights page) and with raw uPlot on a bare page, both from the same arrays.
const query = {
  kind: 'TrendsQuery',
  series: [{ kind: 'EventsNode', event: '$pageview' }],
  dateRange: { date_from: '-90d' },
  interval: 'day',
  breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
};
const trend = (await (
  await fetch(`${base}/api/environments/${h.boot.project_id}/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  })
).json()) as { results: { data: number[]; days: string[]; label: string }[] };
const seriesCount = trend.results.length;
const points = trend.results[0]?.days.length ?? 0;

const consoleDraw: number[] = [];
await page.goto(`${base}/insights`);
await page.locator('.chart canvas').first().waitFor({ timeout: 30_000 });
const breakdown = page.getByLabel('Breakdown by event property');
/** Sets the breakdown and waits for the chart drawn from its answer. */
async function drawWith(value: string): Promise<number> {
  await page.evaluate(() => performance.clearMeasures('burrow:chart-draw'));
  await breakdown.fill(value);
  await breakdown.press('Tab');
  await page.waitForFunction(() => performance.getEntriesByName('burrow:chart-draw').length > 0, null, {
    timeout: 30_000,
  });
  return page.evaluate(() => performance.getEntriesByName('burrow:chart-draw').at(-1)!.duration);
}
await page.getByLabel('Date range').selectOption('-90d');
for (let i = 0; i < runs; i++) {
  // Insights queries again only when the form's query changes (an unchanged or merely re-spaced
  // breakdown draws nothing), so each run goes through no breakdown first; only the second draw,
  // of the same data every time, is timed.
  await drawWith('');
  consoleDraw.push(await drawWith('$browser'));
}

// Raw uPlot on a blank page of the same origin, same data, same size.
const uplotJs = readFileSync(join(process.cwd(), 'node_modules/uplot/dist/uPlot.iife.min.js'), 'utf8');
const raw = await context.newPage();
await raw.goto(`${base}/api/schema/`); // any same-origin page; the chart gets its own element
await raw.addScriptTag({ content: uplotJs });
const rawDraw: number[] = [];
for (let i = 0; i < runs; i++) {
  rawDraw.push(
    await raw.evaluate((results) => {
      // The page's globals, typed just enough (this file compiles without the DOM library).
      const page = globalThis as unknown as {
        document: { body: { innerHTML: string }; getElementById(id: string): unknown };
        uPlot: new (opts: object, data: unknown[], el: unknown) => unknown;
      };
      page.document.body.innerHTML = '<div id="c" style="width:1000px"></div>';
      const x = results[0]!.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
      const t = performance.now();
      new page.uPlot(
        {
          width: 1000,
          height: 320,
          series: [{}, ...results.map((r) => ({ label: r.label, stroke: '#d9822b' }))],
        },
        [x, ...results.map((r) => r.data)],
        page.document.getElementById('c'),
      );
      return performance.now() - t;
    }, trend.results),
  );
}

await browser.close();
await h.close();

console.log(`\nInitial download (index.html's scripts and styles):\n`);
console.log(table(sizes.map((s) => ({ file: s.path, bytes: s.raw, gzip: s.gzip }))));
console.log(`\ninitial JS gzipped: ${(initialJsGzip / 1024).toFixed(1)} KB (target ≤ 250 KB)\n`);
console.log(
  table([
    {
      measure: 'login page on screen, cold (ms)',
      p50: median(loginMs),
      max: Math.max(...loginMs),
      target: '< 1000',
    },
    {
      measure: 'Home first card, logged in (ms)',
      p50: median(homeMs),
      max: Math.max(...homeMs),
      target: '< 1000',
    },
    {
      measure: `Trends chart draw, ${seriesCount} series × ${points} days (ms)`,
      p50: median(consoleDraw),
      max: Math.max(...consoleDraw),
      target: '< 100',
    },
    { measure: 'raw uPlot, same data (ms)', p50: median(rawDraw), max: Math.max(...rawDraw), target: '' },
  ]),
);
const report = reporter('console');
report({
  case: 'initial download',
  metric: 'JS gzipped',
  value: initialJsGzip / 1024,
  unit: 'KB',
  goal: { op: '<=', value: 50, issue: 31 },
});
const firstRender = { op: '<', value: 1000, issue: 19 } as const;
report({
  case: 'login page on screen, cold',
  metric: 'p50',
  value: median(loginMs),
  unit: 'ms',
  goal: firstRender,
});
report({
  case: 'Home first card, logged in',
  metric: 'p50',
  value: median(homeMs),
  unit: 'ms',
  goal: firstRender,
});
report({
  case: `Trends chart draw after its answer, ${seriesCount} series × ${points} days`,
  metric: 'p50',
  value: median(consoleDraw),
  unit: 'ms',
  ratio: median(consoleDraw) / median(rawDraw),
  against: 'raw uPlot, same data',
  goal: { op: '<=', value: 300, issue: 31 },
});
process.exit(0);
