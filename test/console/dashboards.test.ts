import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-dashboards: skipped, no Chromium at ${CHROMIUM}`);

/** Screenshots are for people to look at; nothing compares pixels. */
const SHOTS = process.env.SHOTS_DIR ?? join(process.cwd(), '.tmp', 'screenshots', 'dashboards');

/** A dashboard built, arranged, filtered and shared in the console, as a person does it. */
describe.skipIf(!hasChromium)(`dashboards in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'dash-owner@example.com';
  const password = 'correct horse battery';
  const project = () => h.boot.project_id;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    // 60 events over ten days (six a day), half of them on the pro plan.
    const now = Date.now();
    const batch = Array.from({ length: 60 }, (_, i) => ({
      event: '$pageview',
      distinct_id: `user-${i % 7}`,
      timestamp: new Date(now - Math.floor(i / 6) * 86_400_000 - 60_000 - i * 1000).toISOString(),
      properties: { plan: i % 2 ? 'pro' : 'free' },
    }));
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
    // Ingestion is asynchronous: wait until every event is queryable.
    for (let tries = 0; ; tries++) {
      const counted = await h.request('POST', `/api/environments/${project()}/query/`, {
        body: {
          query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events' },
          refresh: 'force_blocking',
        },
      });
      if (counted.json().results?.[0]?.[0] === 60) break;
      if (tries > 200) throw new Error(`events not ingested: ${counted.body}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Two saved insights exist already: a trend and a SQL query that takes the dashboard's filters.
    for (const body of [
      {
        name: 'Pageviews trend',
        saved: true,
        query: {
          kind: 'InsightVizNode',
          source: {
            kind: 'TrendsQuery',
            dateRange: { date_from: '-7d' },
            series: [{ kind: 'EventsNode', event: '$pageview' }],
          },
        },
      },
      {
        name: 'Pageview total (SQL)',
        saved: true,
        query: {
          kind: 'DataVisualizationNode',
          source: { kind: 'HogQLQuery', query: 'SELECT count() AS total FROM events WHERE {filters}' },
        },
      },
    ]) {
      const made = await h.request('POST', `/api/projects/${project()}/insights/`, { body });
      expect(made.statusCode, made.body).toBe(201);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function logIn(page: Page) {
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${base}/`);
  }

  /** Wide and narrow, light and dark. */
  async function shots(page: Page, name: string) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.waitForTimeout(150);
        await page.screenshot({ path: join(SHOTS, `${name}-${width}-${scheme}.png`), fullPage: true });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  const titles = (page: Page) => page.locator('.tiles > .tile h2').allTextContents();
  const total = (page: Page) =>
    page
      .getByRole('listitem', { name: 'Pageview total (SQL)' })
      .locator('.trow [role=cell]')
      .nth(1)
      .textContent();

  it('builds, arranges, resizes, renames, filters, shares and deletes a dashboard', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await logIn(page);

    await page.getByRole('link', { name: 'Dashboards' }).click();
    await page.getByLabel('Name').fill('Launch board');
    await page.getByRole('button', { name: 'New dashboard' }).click();
    await page.getByRole('link', { name: 'Launch board' }).click();
    await expect.poll(() => page.getByText(/No tiles yet/).count()).toBe(1);

    // Add both saved insights, the SQL one too.
    for (const name of ['Pageviews trend', 'Pageview total (SQL)']) {
      await page.getByRole('button', { name: 'Add insight' }).click();
      await page.getByLabel('Saved insight').selectOption({ label: name });
      await page.getByRole('button', { name: 'Add to dashboard' }).click();
      await expect.poll(() => titles(page), { timeout: 20_000 }).toContain(name);
    }
    expect(await titles(page)).toEqual(['Pageviews trend', 'Pageview total (SQL)']);
    await expect
      .poll(() => page.locator('.tile .chart canvas, .tile svg').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('60');

    // Rearrange from the keyboard: focus the SQL tile's "move up" and press Enter.
    await page.getByRole('button', { name: 'Move “Pageview total (SQL)” up' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => titles(page)).toEqual(['Pageview total (SQL)', 'Pageviews trend']);
    // Focus stays on the moved tile (its "up" is disabled at the top, so on its "down"): Enter
    // moves it back, and Enter again (focus now on its "up") moves it up once more.
    const focused = () => page.locator('*:focus').getAttribute('aria-label');
    await expect.poll(focused).toBe('Move “Pageview total (SQL)” down');
    await page.keyboard.press('Enter');
    await expect.poll(() => titles(page)).toEqual(['Pageviews trend', 'Pageview total (SQL)']);
    await expect.poll(focused).toBe('Move “Pageview total (SQL)” up');
    await page.keyboard.press('Enter');
    await expect.poll(() => titles(page)).toEqual(['Pageview total (SQL)', 'Pageviews trend']);
    await page.reload();
    await expect
      .poll(() => titles(page), { timeout: 20_000 })
      .toEqual(['Pageview total (SQL)', 'Pageviews trend']);

    // Resize: the trend takes the full width and grows taller; the layout is saved on the tile.
    await page.getByLabel('Width of “Pageviews trend”').selectOption({ label: 'Full width' });
    await page.getByLabel('Height of “Pageviews trend”').selectOption({ label: 'Tall' });
    await expect
      .poll(() => page.getByRole('listitem', { name: 'Pageviews trend' }).getAttribute('style'))
      .toMatch(/--w: ?12.*--h: ?8/);
    const id = page.url().split('/').pop();
    const stored = (await h.request('GET', `/api/projects/${project()}/dashboards/${id}/`)).json() as {
      tiles: {
        insight: { name: string } | null;
        layouts: { sm?: { x: number; y: number; w: number; h: number } };
      }[];
    };
    const layoutOf = (name: string) => stored.tiles.find((t) => t.insight?.name === name)?.layouts.sm;
    expect(layoutOf('Pageview total (SQL)')).toEqual({ x: 0, y: 0, w: 6, h: 5 });
    expect(layoutOf('Pageviews trend')).toEqual({ x: 0, y: 5, w: 12, h: 8 });

    // Rename.
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Dashboard name').fill('Launch review');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Launch review');

    // Dashboard-wide date range and property filter: the SQL tile recomputes with them.
    await page.getByLabel('Date range for every tile').selectOption({ label: 'Last 24 hours' });
    // Six events a day over ten days: the last 24 hours (from the start of that hour) hold 6 or 12.
    await expect
      .poll(async () => ['6', '12'].includes((await total(page)) ?? ''), { timeout: 20_000 })
      .toBe(true);
    await page.getByLabel('Date range for every tile').selectOption({ label: 'Last 30 days' });
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('60');
    await page.getByLabel('Event property').fill('plan');
    await page.getByLabel('equals').fill('pro');
    await page.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('30');
    await shots(page, 'dashboard');
    await page.getByRole('button', { name: 'Clear filter' }).click();
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('60');

    // Share: turn the link on and open it in a browser with no session.
    await page.getByRole('button', { name: 'Share' }).click();
    await page.getByLabel(/Anyone with the link/).check();
    const link = await page.getByLabel('Share link').inputValue();
    expect(link).toMatch(new RegExp(`^${base}/share/[\\w-]+$`));
    await shots(page, 'dashboard-share');
    const outsider = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const publicPage = await outsider.newPage();
    await publicPage.goto(link);
    await expect
      .poll(() => publicPage.getByRole('heading', { level: 1 }).textContent(), { timeout: 20_000 })
      .toBe('Launch review');
    await expect
      .poll(() => publicPage.locator('.tiles > .tile h2').allTextContents(), { timeout: 20_000 })
      .toEqual(['Pageview total (SQL)', 'Pageviews trend']);
    expect(await publicPage.getByRole('button', { name: /Remove/ }).count()).toBe(0);
    expect(publicPage.url()).not.toContain('/login');
    await shots(publicPage, 'shared');
    await outsider.close();

    // Open a tile's insight: the SQL one opens in the SQL editor and runs.
    await page.getByRole('link', { name: 'Pageview total (SQL)' }).click();
    await page.waitForURL(/\/sql\?insight=/);
    await expect
      .poll(() => page.locator('.cm-content').textContent(), { timeout: 20_000 })
      .toContain('{filters}');
    await expect
      .poll(() => page.getByRole('status').first().textContent(), { timeout: 20_000 })
      .toMatch(/rows in/);
    await page.goBack();

    // Remove a tile, then delete the dashboard.
    await page.getByRole('button', { name: 'Remove “Pageviews trend”' }).click();
    await expect.poll(() => titles(page), { timeout: 20_000 }).toEqual(['Pageview total (SQL)']);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${base}/dashboards`);
    await expect.poll(() => page.getByText(/No dashboards yet/).count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
