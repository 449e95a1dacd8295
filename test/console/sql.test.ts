import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-sql: skipped, no Chromium at ${CHROMIUM}`);

/** Screenshots are for people to look at; nothing compares pixels. */
const SHOTS = process.env.SHOTS_DIR ?? join(process.cwd(), '.tmp', 'screenshots', 'sql');

/** The SQL page as a person uses it: browse tables, run, export, rerun from history, keep on a dashboard. */
describe.skipIf(!hasChromium)(`SQL page in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'sql-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    const now = Date.now();
    const batch = Array.from({ length: 30 }, (_, i) => ({
      event: i % 3 === 0 ? 'signed up' : '$pageview',
      distinct_id: `user-${i % 5}`,
      timestamp: new Date(now - i * 3_600_000).toISOString(),
    }));
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
    for (let tries = 0; ; tries++) {
      const counted = await h.request('POST', `/api/environments/${h.boot.project_id}/query/`, {
        body: {
          query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events' },
          refresh: 'force_blocking',
        },
      });
      if (counted.json().results?.[0]?.[0] === 30) break;
      if (tries > 200) throw new Error(`events not ingested: ${counted.body}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const board = await h.request('POST', `/api/projects/${h.boot.project_id}/dashboards/`, {
      body: { name: 'SQL board' },
    });
    expect(board.statusCode, board.body).toBe(201);
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

  const ranStatus = (page: Page) =>
    page
      .getByRole('status')
      .filter({ hasText: /rows in/ })
      .count();

  it('browses tables, runs, exports CSV, reruns from history, clears stale errors, adds to a dashboard', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await logIn(page);
    await page.getByRole('link', { name: 'SQL' }).click();
    const editor = page.locator('.cm-content');
    await editor.waitFor();

    // The table browser lists the schema's tables; a column goes in at the cursor.
    await page.getByRole('navigation', { name: 'Tables' }).getByText('events', { exact: true }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Insert column events.distinct_id' }).count())
      .toBe(1);
    await editor.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('SELECT ');
    await page.getByRole('button', { name: 'Insert column events.distinct_id' }).click();
    await page.keyboard.type(
      `, count() AS c, 'a,"b"' AS tricky FROM events GROUP BY distinct_id ORDER BY distinct_id`,
    );
    await page.keyboard.press('Escape');
    expect(await editor.textContent()).toContain('SELECT distinct_id, count()');
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => ranStatus(page), { timeout: 20_000 }).toBe(1);
    expect(await page.locator('.data-table .trow').count()).toBe(5);

    // CSV of the current result, quotes and commas escaped.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const file = await downloading;
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    const csv = readFileSync((await file.path()) as string, 'utf8');
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('distinct_id,c,tricky');
    expect(lines[1]).toBe('user-0,6,"a,""b"""');
    expect(lines).toHaveLength(7);
    await shots(page, 'sql-result');

    // An error from a failed run disappears once the query changes.
    await editor.click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type('SELECT nope FROM events');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Run', exact: false }).first().click();
    await expect.poll(() => page.getByRole('alert').count(), { timeout: 20_000 }).toBe(1);
    await editor.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' ');
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);

    // History, latest first; running an earlier query again fills the editor and answers again.
    await page.getByRole('tab', { name: 'History' }).click();
    const history = page.getByRole('list', { name: 'Query history' }).locator('li pre');
    await expect
      .poll(() => history.allTextContents())
      .toEqual(['SELECT nope FROM events', expect.stringContaining('SELECT distinct_id, count()')]);
    await shots(page, 'sql-history');
    await page.getByRole('button', { name: 'Run again' }).nth(1).click();
    await expect.poll(() => page.locator('.data-table .trow').count(), { timeout: 20_000 }).toBe(5);
    expect(await editor.textContent()).toContain('SELECT distinct_id, count()');
    expect(await page.getByRole('alert').count()).toBe(0);
    await expect.poll(() => history.first().textContent()).toContain('SELECT distinct_id, count()');
    // Per user: it survives a reload. The tabs answer the arrow keys.
    await page.reload();
    await page.getByRole('tab', { name: 'Tables' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect
      .poll(() => page.getByRole('tab', { name: 'History' }).getAttribute('aria-selected'))
      .toBe('true');
    await expect.poll(() => history.count()).toBe(2);
    await page.getByRole('button', { name: 'Run again' }).first().click();
    await expect.poll(() => ranStatus(page), { timeout: 20_000 }).toBe(1);

    // Add to dashboard: saved as a HogQL insight and shown as a tile there.
    await page.getByLabel('Insight name').fill('Events per person');
    await page.getByLabel('Dashboard', { exact: true }).selectOption({ label: 'SQL board' });
    await page.getByRole('button', { name: 'Save and add to dashboard' }).click();
    await expect.poll(() => page.getByText(/Saved as “Events per person” and added to/).count()).toBe(1);
    const saved = await h.request('GET', `/api/projects/${h.boot.project_id}/insights/?search=per%20person`);
    expect(saved.json().results[0].query).toMatchObject({
      kind: 'DataVisualizationNode',
      source: { kind: 'HogQLQuery', query: expect.stringContaining('SELECT distinct_id') },
    });
    await page.getByRole('link', { name: 'SQL board' }).click();
    await expect
      .poll(() => page.locator('.tiles > .tile h2').allTextContents(), { timeout: 20_000 })
      .toEqual(['Events per person']);
    await expect.poll(() => page.locator('.tile .data-table .trow').count(), { timeout: 20_000 }).toBe(5);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
