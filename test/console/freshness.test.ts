import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-freshness: skipped, no Chromium at ${CHROMIUM}`);

/** Screenshots are artifacts for people to look at; nothing compares pixels. */
const SHOTS = process.env.SHOTS_DIR ?? join(process.cwd(), '.tmp', 'screenshots');

/**
 * A person watching an insight while events arrive: the page says when its number was computed,
 * Refresh calculates anew, and a reload after new events shows them without Refresh (the
 * project's event watermark makes the cached result stale).
 */
describe.skipIf(!hasChromium)(`insight freshness in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'freshness-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  }, 60_000);
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

  async function sendPageviews(count: number) {
    const batch = Array.from({ length: count }, (_, i) => ({
      event: '$pageview',
      distinct_id: `visitor-${i % 4}`,
      properties: { $current_url: `https://shop.example/p/${i}` },
    }));
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
  }

  /** The Total column of the result's one series, as shown. */
  const total = (page: Page) =>
    page
      .locator('table tr', { hasText: /pageview/i })
      .first()
      .locator('td')
      .nth(1)
      .textContent({ timeout: 20_000 });

  const shots = async (page: Page, name: string) => {
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize({ width, height });
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(SHOTS, `${name}-${width}-${scheme}.png`), fullPage: true });
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
  };

  it('shows when a result was computed, refreshes on demand, and shows new events on reload', async () => {
    const dashboard = await h.request('POST', `/api/projects/${h.boot.project_id}/dashboards/`, {
      body: { name: 'Shop' },
    });
    expect(dashboard.statusCode).toBe(201);
    await sendPageviews(3);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await logIn(page);

    // Open Insights: last 7 days of pageviews, computed just now.
    await page.getByRole('link', { name: 'Insights' }).click();
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('3');
    const computed = page.locator('.freshness time');
    await expect.poll(() => computed.textContent()).toBe('just now');
    // The exact time is in the title, and the machine-readable one in datetime.
    expect(await computed.getAttribute('title')).toBeTruthy();
    expect(Date.parse((await computed.getAttribute('datetime')) as string)).toBeGreaterThan(
      Date.now() - 60_000,
    );
    await shots(page, 'freshness-insight');

    // Events arrive; Refresh (by keyboard) calculates anew.
    await sendPageviews(2);
    const refresh = page.getByRole('button', { name: 'Refresh' });
    await refresh.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('5');

    // More events; a reload shows them at once, without Refresh.
    await sendPageviews(4);
    await page.reload();
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('9');

    // Saved to a dashboard, the tile says how fresh it is; new events show on reload there too.
    await page.getByLabel('Name').fill('Pageviews this week');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.getByLabel('Add to dashboard').selectOption({ label: 'Shop' });
    await expect.poll(() => page.getByText('Added to Shop.').count()).toBe(1);
    await page.goto(`${base}/dashboards/${dashboard.json().id}`);
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('9');
    await expect
      .poll(() => page.locator('.freshness').textContent())
      .toMatch(/Oldest tile computed just now/);
    await shots(page, 'freshness-dashboard');
    await sendPageviews(1);
    await page.reload();
    await expect.poll(() => total(page), { timeout: 20_000 }).toBe('10');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Refresh' }).isEnabled()).toBe(true);
    await expect.poll(() => total(page)).toBe('10');
    await context.close();
  }, 120_000);
});
