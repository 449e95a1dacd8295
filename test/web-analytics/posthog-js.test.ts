import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const require = createRequire(import.meta.url);
if (!hasChromium) console.warn('web-analytics posthog-js: skipped, no Chromium (apt-get install chromium)');

/**
 * The unmodified posthog-js in Chromium on a two-page site served here: a visitor lands on `/`
 * from a campaign link, scrolls, clicks an outbound link, goes to `/pricing` and leaves. What the
 * SDK sends (pageviews, pageleave with the scroll and duration of the page left, web vitals,
 * outbound clicks) must come out of the web analytics queries where PostHog's dashboard reads it.
 */
describe.skipIf(!hasChromium)(`web analytics from posthog-js in Chromium (${backend})`, () => {
  let h: Harness;
  let site: Server;
  let origin: string;
  const query = async (q: Record<string, unknown>) => {
    const res = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
      body: { query: q, refresh: 'force_blocking' },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const hogql = async (sql: string) =>
    (await query({ kind: 'HogQLQuery', query: sql })).results as unknown[][];

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    const api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const bundle = readFileSync(require.resolve('posthog-js/dist/array.full.js'));
    const pageHtml = (
      title: string,
      body: string,
    ) => `<!doctype html><html><head><title>${title}</title></head>
<body style="margin:0"><h1>${title}</h1>${body}<div style="height:4000px"></div>
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(h.boot.project_api_key)}, {
    api_host: ${JSON.stringify(api)},
    capture_pageview: true,
    capture_pageleave: true,
    autocapture: true,
    capture_performance: { web_vitals: true, web_vitals_delayed_flush_ms: 1000 },
    disable_session_recording: true,
    request_batching: false,
    opt_out_useragent_filter: true, // headless Chromium looks like a bot to posthog-js
  });
</script></body></html>`;
    const pages: Record<string, string> = {
      '/': pageHtml(
        'Home',
        `<p>Welcome</p><a id="out" href="https://docs.example.org/guide?ref=home" onclick="event.preventDefault()">Docs</a>
         <a id="pricing" href="/pricing">Pricing</a>`,
      ),
      '/pricing': pageHtml('Pricing', '<p>Plans</p>'),
    };
    site = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (path === '/posthog.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(bundle);
      } else if (pages[path]) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(pages[path]);
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await h?.close();
  });

  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 25_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (ok(value) || Date.now() > end) return value;
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  it('pageviews, pageleave, scroll, web vitals and outbound clicks reach the queries', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage({ viewport: { width: 1000, height: 800 } });
      await tab.goto(`${origin}/?utm_source=newsletter&utm_medium=email&utm_campaign=launch`);
      await tab.waitForFunction(
        () => (globalThis as unknown as { posthog?: { __loaded?: boolean } }).posthog?.__loaded === true,
      );
      // Something for LCP / CLS to measure, a real interaction for INP, then half the page scrolled.
      await tab.click('h1');
      await tab.mouse.wheel(0, 2000);
      await tab.waitForTimeout(500);
      await tab.evaluate(() =>
        (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
      );
      await tab.click('#out');
      await tab.waitForTimeout(1500);
      await Promise.all([tab.waitForURL(`${origin}/pricing`), tab.click('#pricing')]);
      await tab.waitForFunction(
        () => (globalThis as unknown as { posthog?: { __loaded?: boolean } }).posthog?.__loaded === true,
      );
      await tab.waitForTimeout(1000);
      // Leaving the site: posthog-js sends $pageleave (and its buffered web vitals) on unload.
      await tab.goto('about:blank');
      await tab.close({ runBeforeUnload: true });

      const events = await until(
        () => hogql('select event, count() from events group by event order by event'),
        (rows) => {
          const names = rows.map((r) => r[0]);
          return ['$pageview', '$pageleave', '$web_vitals', '$autocapture'].every((e) => names.includes(e));
        },
      );
      const count = Object.fromEntries(events.map(([e, n]) => [e, Number(n)]));
      expect(count.$pageview, JSON.stringify(events)).toBe(2);
      expect(count.$pageleave, JSON.stringify(events)).toBeGreaterThanOrEqual(1);
      expect(count.$web_vitals, JSON.stringify(events)).toBeGreaterThanOrEqual(1);

      // Each page left sends $pageleave with how far it was scrolled and for how long it was seen.
      const leaves = await hogql(
        `select properties.$pathname, properties.$prev_pageview_pathname,
                toFloat(properties.$prev_pageview_max_scroll_percentage), toFloat(properties.$prev_pageview_duration)
         from events where event = '$pageleave' order by timestamp`,
      );
      const home = leaves.find((r) => r[0] === '/');
      expect(home, JSON.stringify(leaves)).toBeDefined();
      expect(home?.[1]).toBe('/');
      expect(Number(home?.[2])).toBeGreaterThan(0.3);
      expect(Number(home?.[3])).toBeGreaterThan(1);
      const vitals = await hogql(
        `select toFloat(properties.$web_vitals_FCP_value), toFloat(properties.$web_vitals_LCP_value), properties.$pathname
         from events where event = '$web_vitals' order by timestamp`,
      );
      expect(
        vitals.some((r) => Number(r[0]) > 0 || Number(r[1]) > 0),
        JSON.stringify(vitals),
      ).toBe(true);

      // The dashboard's tiles: one visitor, one session, two views; both pages; the campaign.
      const overview = await query({
        kind: 'WebOverviewQuery',
        dateRange: { date_from: '-1d' },
        properties: [],
      });
      const item = (key: string) => overview.results.find((r: { key: string }) => r.key === key)?.value;
      expect(item('visitors')).toBe(1);
      expect(item('views')).toBe(2);
      expect(item('sessions')).toBe(1);
      expect(item('bounce rate')).toBe(0);
      expect(item('session duration')).toBeGreaterThan(1);

      const table = async (breakdownBy: string) =>
        (
          await query({
            kind: 'WebStatsTableQuery',
            breakdownBy,
            dateRange: { date_from: '-1d' },
            properties: [],
          })
        ).results.map((r: unknown[]) => [r[0], (r[1] as unknown[])[0], (r[2] as unknown[])[0]]);
      expect(await table('Page')).toEqual(
        expect.arrayContaining([
          ['/', 1, 1],
          ['/pricing', 1, 1],
        ]),
      );
      expect(await table('InitialPage')).toEqual([['/', 1, 1 + 1]]);
      expect(await table('ExitPage')).toEqual([['/pricing', 1, 2]]);
      expect(await table('InitialUTMSource')).toEqual([['newsletter', 1, 2]]);
      expect(await table('InitialChannelType')).toEqual([['Email', 1, 2]]);
      expect((await table('Browser'))[0]?.[0]).toBe('Chrome');

      // Web vitals by path, as the dashboard's vitals tab asks (FCP, the metric every page load has).
      const fcp = await query({
        kind: 'WebVitalsPathBreakdownQuery',
        metric: 'FCP',
        percentile: 'p75',
        thresholds: [1800, 3000],
        dateRange: { date_from: '-1d' },
        properties: [],
      });
      const banded = Object.values(
        fcp.results[0] as Record<string, { path: string; value: number }[]>,
      ).flat();
      expect(banded.map((r) => r.path).sort(), JSON.stringify(fcp.results)).toContain('/');
      expect(banded.every((r) => r.value > 0)).toBe(true);
      const vitalsTrend = await query({
        kind: 'WebVitalsQuery',
        source: {
          kind: 'TrendsQuery',
          dateRange: { date_from: '-1d' },
          interval: 'day',
          series: [
            { kind: 'EventsNode', event: '$web_vitals', math: 'p75', math_property: '$web_vitals_FCP_value' },
          ],
        },
      });
      expect(Math.max(...(vitalsTrend.results[0].data as number[]))).toBeGreaterThan(0);

      // The scroll depth column reads the page left's $pageleave: "/" was scrolled past a third.
      const scroll = await query({
        kind: 'WebStatsTableQuery',
        breakdownBy: 'Page',
        includeBounceRate: true,
        includeScrollDepth: true,
        dateRange: { date_from: '-1d' },
        properties: [],
      });
      const column = (scroll.columns as string[]).indexOf('context.columns.average_scroll_percentage');
      expect(column, JSON.stringify(scroll.columns)).toBeGreaterThan(0);
      const homeRow = (scroll.results as unknown[][]).find((r) => r[0] === '/');
      expect(Number((homeRow?.[column] as unknown[] | undefined)?.[0])).toBeCloseTo(Number(home?.[2]), 6);

      const clicks = await query({
        kind: 'WebExternalClicksTableQuery',
        dateRange: { date_from: '-1d' },
        properties: [],
        stripQueryParams: true,
      });
      expect(
        clicks.results.map((r: unknown[]) => [r[0], (r[1] as unknown[])[0], (r[2] as unknown[])[0]]),
      ).toEqual([['https://docs.example.org/guide', 1, 1]]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
