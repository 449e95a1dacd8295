import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-web-analytics: skipped, no Chromium at ${CHROMIUM}`);

const SHOTS = process.env.WA_SHOTS;
/** The live visitors count, the HogQL the page's live tile runs (web/src/pages/web-analytics/live.tsx). */
const LIVE_SQL = 'SELECT count(DISTINCT person_id) FROM events WHERE timestamp > now() - INTERVAL 5 MINUTE';

/**
 * Three groups of visits with counts known from how they are made:
 * - A: 6 persons a minute ago, entering on /pricing from google.com (utm newsletter), then /signup;
 *   US, Chrome, desktop. One clicks out to github.com.
 * - B: 4 persons three hours ago on /docs from t.co; Germany (Berlin), Firefox, mobile.
 * - C: 2 persons three days ago on / with no referrer; France, Safari.
 * Last 7 days: 12 visitors, 18 views, 12 sessions. Last 24 hours: 10 visitors. Germany: 4.
 */
function visits(now: number) {
  const events: Record<string, unknown>[] = [];
  const group = (
    name: string,
    persons: number,
    ago: number,
    paths: string[],
    props: Record<string, unknown>,
  ) => {
    const { lcp: _lcp, ...pageProps } = props;
    for (let i = 0; i < persons; i++) {
      // One web vitals report per visit, at its first pageview's time (durations stay as they are).
      if (props.lcp)
        events.push({
          event: '$web_vitals',
          distinct_id: `${name}-${i}`,
          timestamp: new Date(now - ago + i * 1000).toISOString(),
          properties: {
            $session_id: `${name}-session-${i}`,
            $pathname: paths[0],
            $current_url: `https://shop.example${paths[0]}`,
            // The visit's referrer and campaign too: the session's entry is whichever event it reads first.
            ...pageProps,
            $web_vitals_LCP_value: props.lcp,
          },
        });
      paths.forEach((path, j) => {
        events.push({
          event: '$pageview',
          distinct_id: `${name}-${i}`,
          timestamp: new Date(now - ago + j * 30_000 + i * 1000).toISOString(),
          properties: {
            $session_id: `${name}-session-${i}`,
            $pathname: path,
            $current_url: `https://shop.example${path}`,
            ...pageProps,
          },
        });
      });
    }
  };
  group('a', 6, 120_000, ['/pricing', '/signup'], {
    lcp: 1200,
    $referring_domain: 'www.google.com',
    utm_source: 'newsletter',
    utm_medium: 'email',
    $geoip_country_code: 'US',
    $geoip_city_name: 'Boston',
    $browser: 'Chrome',
    $os: 'Mac OS X',
    $device_type: 'Desktop',
  });
  group('b', 4, 3 * 3600_000, ['/docs'], {
    lcp: 5200,
    $referring_domain: 't.co',
    $geoip_country_code: 'DE',
    $geoip_city_name: 'Berlin',
    $geoip_subdivision_1_code: 'BE',
    $geoip_subdivision_1_name: 'Land Berlin',
    $browser: 'Firefox',
    $os: 'Android',
    $device_type: 'Mobile',
  });
  group('c', 2, 3 * 86_400_000, ['/'], {
    $referring_domain: '$direct',
    $geoip_country_code: 'FR',
    $browser: 'Safari',
    $os: 'iOS',
    $device_type: 'Mobile',
  });
  events.push({
    event: '$autocapture',
    distinct_id: 'a-0',
    timestamp: new Date(now - 100_000).toISOString(),
    properties: {
      $session_id: 'a-session-0',
      $event_type: 'click',
      $external_click_url: 'https://github.com/burrow',
    },
  });
  return events;
}

describe.skipIf(!hasChromium)(`console web analytics (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    c = await startConsoleBrowser('wa');
    ({ h, base, browser } = c);
    const res = await h.request('POST', '/batch/', {
      body: { api_key: h.boot.project_api_key, batch: visits(Date.now()) },
    });
    expect(res.statusCode).toBe(200);
    // A goal: the signup page, which group A's six visitors reached.
    const action = await h.request('POST', `/api/projects/${h.boot.project_id}/actions/`, {
      body: {
        name: 'Reached signup',
        steps: [{ event: '$pageview', url: '/signup', url_matching: 'contains' }],
      },
    });
    expect(action.statusCode, action.body).toBe(201);
  });
  afterAll(async () => c?.close());

  /** The API's own answer to the query a tile makes (asked again while the page's own queue is full). */
  async function api(query: object) {
    for (let attempt = 0; ; attempt++) {
      const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
        body: { query, refresh: 'force_blocking' },
      });
      if (res.statusCode === 429 && attempt < 10) {
        await new Promise((r) => setTimeout(r, 300));
        continue;
      }
      expect(res.statusCode).toBe(200);
      return res.json();
    }
  }
  async function overview(date_from: string, properties: object[] = []) {
    const body = await api({
      kind: 'WebOverviewQuery',
      dateRange: { date_from },
      properties,
      compareFilter: { compare: true },
    });
    return Object.fromEntries(
      (body.results as { key: string; value: number }[]).map((r) => [r.key, r.value]),
    ) as Record<string, number>;
  }

  const logIn = (page: Page) => c.logIn(page);
  /** Every tile has its answer (for screenshots). */
  const loaded = (page: Page) =>
    expect.poll(() => page.locator('.wa .skeleton').count(), { timeout: 20_000 }).toBe(0);
  const tile = (page: Page, key: string) => page.locator(`.wa-tile[data-key="${key}"] .wa-tile-value`);
  const tileNumber = async (page: Page, key: string) =>
    Number((await tile(page, key).textContent())?.replace(/,/g, ''));
  /** A table's rows as [name, visitors, views]. */
  const rows = (page: Page, table: string) =>
    page
      .getByRole('table', { name: table })
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())),
      );

  // First, while the query cache is cold: Home (the same dashboard) is left mid-load for /web, as a
  // person clicking through would. No query of either is refused with a 429.
  it('loads on a cold cache without a query refused', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const isQuery = (url: string) => /\/query\/$/.test(new URL(url).pathname);
    const answers: number[] = [];
    page.on('response', (r) => {
      if (isQuery(r.url())) answers.push(r.status());
    });
    // The page's own queries (Home's, left mid-load, may be cancelled unanswered).
    let onWeb = false;
    const webQueries = new Set<Request>();
    page.on('request', (r) => {
      if (onWeb && isQuery(r.url())) webQueries.add(r);
    });
    await logIn(page);
    await page.getByRole('region', { name: 'Web analytics' }).waitFor();
    onWeb = true;
    await page.goto(`${base}/web`);
    await loaded(page);
    expect(await page.locator('.wa [role="alert"], .wa .error-note').count()).toBe(0);
    expect(await tileNumber(page, 'visitors')).toBe(12);
    // How many /web sends depends on timing (a tile whose query is superseded cancels it): every
    // one answered is a 200, and the page's numbers above came from them.
    const statuses = await Promise.all(
      [...webQueries].map(async (r) => (await r.response().catch(() => null))?.status() ?? 'cancelled'),
    );
    expect(statuses.filter((s) => s !== 200 && s !== 'cancelled')).toEqual([]);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(answers.filter((s) => s === 429)).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows the right numbers, filters by a clicked row, keeps the view in the address', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 1000 },
      colorScheme: 'light',
    });
    const page = await context.newPage();
    await logIn(page);
    // Most of the project's events are pageviews: Home shows the web analytics.
    await page.getByRole('region', { name: 'Web analytics' }).waitFor();
    await page.getByRole('heading', { name: 'All events' }).waitFor();
    if (SHOTS) {
      await loaded(page);
      await page.screenshot({ path: `${SHOTS}/home-1280-light.png`, fullPage: true });
    }
    await page.goto(`${base}/web`);
    await page.getByRole('heading', { name: 'Web analytics' }).waitFor();
    await tile(page, 'visitors').waitFor();

    const known = { visitors: 12, views: 18, sessions: 12 };
    const fromApi = await overview('-7d');
    for (const [key, n] of Object.entries(known)) {
      expect(fromApi[key]).toBe(n);
      expect(await tileNumber(page, key)).toBe(n);
    }
    // Every visit bounced but A's (two pageviews): 6 of 12.
    expect(await tile(page, 'bounce rate').textContent()).toBe(
      `${Math.round(fromApi['bounce rate'] ?? -1)}%`,
    );
    expect(await tile(page, 'bounce rate').textContent()).toBe('50%');
    // Nothing before the range: no change to show.
    expect(await page.locator('.wa-tile[data-key="visitors"] .wa-change').textContent()).toBe(
      'no previous data',
    );

    await page.getByRole('table', { name: 'Pages' }).waitFor();
    expect(await rows(page, 'Pages')).toEqual([
      ['/pricing', '6', '6'],
      ['/signup', '6', '6'],
      ['/docs', '4', '4'],
      ['/', '2', '2'],
    ]);
    const pagesApi = await api({
      kind: 'WebStatsTableQuery',
      breakdownBy: 'Page',
      dateRange: { date_from: '-7d' },
    });
    expect(pagesApi.results.map((r: [string, number[]]) => [r[0], r[1][0]])).toEqual([
      ['/pricing', 6],
      ['/signup', 6],
      ['/docs', 4],
      ['/', 2],
    ]);
    await page
      .getByRole('table', { name: 'Outbound clicks' })
      .getByRole('link', { name: 'https://github.com/burrow' })
      .waitFor();
    // Live: the six persons of a minute ago, as the API counts them.
    const live = await api({ kind: 'HogQLQuery', query: LIVE_SQL });
    expect(live.results[0][0]).toBe(6);
    await page.getByRole('status').filter({ hasText: '6 live visitors' }).waitFor();

    // The Locations card's Countries tab: clicking Germany filters every tile.
    await page.getByRole('table', { name: 'Countries' }).getByRole('button', { name: 'Germany' }).click();
    await page.getByRole('list', { name: 'Filters' }).getByText('Country is DE').waitFor();
    expect(new URL(page.url()).searchParams.getAll('filter')).toEqual(['Country:DE']);
    const germany = await overview('-7d', [
      { key: '$geoip_country_code', type: 'event', operator: 'exact', value: ['DE'] },
    ]);
    expect(germany.visitors).toBe(4);
    await expect.poll(() => tileNumber(page, 'visitors')).toBe(4);
    expect(await tileNumber(page, 'views')).toBe(4);
    await expect.poll(() => rows(page, 'Pages')).toEqual([['/docs', '4', '4']]);

    // The address keeps the filter: a reload shows the same view.
    await page.reload();
    await page.getByRole('list', { name: 'Filters' }).getByText('Country is DE').waitFor();
    await expect.poll(() => tileNumber(page, 'visitors')).toBe(4);

    // Keyboard: arrows move between tabs, Enter on a row adds its filter.
    await page.getByRole('tab', { name: 'Channels' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Referrers' }).getAttribute('aria-selected')).toBe('true');
    const tco = page.getByRole('table', { name: 'Referrers' }).getByRole('button', { name: 't.co' });
    await tco.focus();
    await page.keyboard.press('Enter');
    await page.getByText('Referrer is t.co').waitFor();
    expect(new URL(page.url()).searchParams.getAll('filter')).toEqual([
      'Country:DE',
      'InitialReferringDomain:t.co',
    ]);
    await expect.poll(() => tileNumber(page, 'visitors')).toBe(4);

    // Removing the chips brings back everything.
    await page.getByRole('button', { name: 'Clear all' }).click();
    await expect.poll(() => tileNumber(page, 'visitors')).toBe(12);
    expect(new URL(page.url()).search).toBe('');

    // The date preset changes the range: the last 24 hours leave C (three days ago) out.
    await page.getByLabel('Date range').selectOption('-24h');
    await expect.poll(() => new URL(page.url()).searchParams.get('date')).toBe('-24h');
    expect((await overview('-24h')).visitors).toBe(10);
    await expect.poll(() => tileNumber(page, 'visitors')).toBe(10);
    if (SHOTS) {
      await loaded(page);
      await page.screenshot({ path: `${SHOTS}/web-1280-light.png`, fullPage: true });
    }
    // Custom days: from and to in the address, whole days.
    await page.getByLabel('Date range').selectOption('custom');
    await expect.poll(() => new URL(page.url()).searchParams.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(new URL(page.url()).searchParams.get('date')).toBeNull();
    await expect.poll(() => tileNumber(page, 'visitors')).toBe(12);
    await context.close();
  }, 120_000);

  it('shows goals from the actions and web vitals rated by page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    await logIn(page);
    await page.goto(`${base}/web`);
    await page.getByRole('table', { name: 'Goals' }).waitFor();
    // Six of the twelve visitors reached /signup, once each.
    expect(await rows(page, 'Goals')).toEqual([['Reached signup', '6', '6', '50%']]);
    const goals = await api({ kind: 'WebGoalsQuery', dateRange: { date_from: '-7d' }, properties: [] });
    expect(
      goals.results.map((r: [string, number[], number[], number[]]) => [r[0], r[1][0], r[2][0], r[3][0]]),
    ).toEqual([['Reached signup', 6, 6, 0.5]]);
    // LCP p75 by page, the poor ones first: /docs at 5.2 s (poor past 4 s), /pricing at 1.2 s.
    await page.getByRole('table', { name: 'LCP by page' }).waitFor();
    expect(await rows(page, 'LCP by page')).toEqual([
      ['/docs', '5,200 ms', 'Poor'],
      ['/pricing', '1,200 ms', 'Good'],
    ]);
    await page.getByRole('tab', { name: 'CLS' }).click();
    await page.getByText('No CLS measured in this period.').waitFor();
    await context.close();
  });

  it('reads at 390 px wide without sideways scrolling, light and dark', async () => {
    for (const scheme of ['dark', 'light'] as const) {
      const context = await browser.newContext({
        viewport: { width: 390, height: 900 },
        colorScheme: scheme,
      });
      const page = await context.newPage();
      await logIn(page);
      await page.goto(`${base}/web?filter=Page:/pricing`);
      await expect.poll(() => tileNumber(page, 'visitors')).toBe(6);
      await page.getByRole('table', { name: 'Countries' }).waitFor();
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow).toBeLessThanOrEqual(0);
      if (SHOTS) {
        await loaded(page);
        await page.screenshot({ path: `${SHOTS}/web-390-${scheme}.png`, fullPage: true });
      }
      await context.close();
    }
    if (SHOTS) {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 1000 },
        colorScheme: 'dark',
      });
      const page = await context.newPage();
      await logIn(page);
      await page.goto(`${base}/web`);
      await tile(page, 'visitors').waitFor();
      await loaded(page);
      await page.screenshot({ path: `${SHOTS}/web-1280-dark.png`, fullPage: true });
      await context.close();
    }
  }, 120_000);
});
