import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-errors: skipped, no Chromium at ${CHROMIUM}`);

/** The console's Errors page and an issue's page: volume, status, stack trace as text. */
describe.skipIf(!hasChromium)(`console errors (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;

  const exception = (type: string, value: string, fn: string, ago: number) => ({
    event: '$exception',
    distinct_id: 'ada',
    timestamp: new Date(Date.now() - ago * 60_000).toISOString(),
    properties: {
      $session_id: 'session-1',
      $exception_list: [
        {
          type,
          value,
          mechanism: { handled: false },
          stacktrace: {
            type: 'raw',
            frames: [
              {
                platform: 'node:javascript',
                function: 'lib',
                filename: '/app/node_modules/x.js',
                in_app: false,
                lineno: 1,
              },
              {
                platform: 'node:javascript',
                function: fn,
                filename: '/app/src/checkout.js',
                in_app: true,
                lineno: 42,
              },
            ],
          },
        },
      ],
    },
  });

  beforeAll(async () => {
    c = await startConsoleBrowser('errors');
    ({ h, base, browser } = c);
    const batch = [
      exception('TypeError', '<img src=x onerror="window.pwned=1"> is not a function', 'applyCoupon', 30),
      exception('TypeError', 'x is not a function', 'applyCoupon', 20),
      exception('TypeError', 'y is not a function', 'applyCoupon', 10),
      exception('RangeError', 'too deep', 'recurse', 5),
    ];
    const res = await h.request('POST', '/batch/', { body: { api_key: h.boot.project_api_key, batch } });
    expect(res.statusCode).toBe(200);
  });
  afterAll(async () => c?.close());

  const logIn = (page: Page) => c.logIn(page);

  it('lists issues by volume, searches, opens one with its stack trace, resolves it', async () => {
    for (const [width, scheme] of [
      [1280, 'light'],
      [390, 'dark'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await logIn(page);
      await page.goto(`${base}/errors`);
      await page.getByRole('heading', { name: 'Errors' }).waitFor();
      const type = page.getByRole('link', { name: 'TypeError' });
      await type.waitFor();
      // Most occurrences first: the TypeError (3) above the RangeError (1).
      const names = await page.getByRole('row').locator('a').allTextContents();
      expect(names.slice(0, 2)).toEqual(['TypeError', 'RangeError']);
      expect(await page.getByRole('img', { name: /Occurrences over time/ }).count()).toBe(2);
      await page.getByLabel('Search').fill('too deep');
      await page.getByLabel('Search').press('Enter');
      await page.getByRole('link', { name: 'TypeError' }).waitFor({ state: 'detached' });
      await page.getByRole('link', { name: 'RangeError' }).waitFor();
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Search').press('Enter');
      await page.getByRole('link', { name: 'TypeError' }).click();
      await page.getByRole('heading', { name: 'TypeError', exact: true }).waitFor();
      await page.getByText('applyCoupon (/app/src/checkout.js:42)').waitFor();
      await page.getByText('3 occurrences').waitFor();
      // The occurrences chart: per day over the week, per hour over the last day, by keyboard.
      await page.getByText('3 in the last 7 days, per day').waitFor({ timeout: 10_000 });
      const chart = page.getByRole('application', { name: /Occurrences per day, last 7 days/ });
      await chart.waitFor({ timeout: 10_000 });
      await page.getByLabel('Period').focus();
      await page.keyboard.press('ArrowUp');
      await page.getByText('3 in the last 24 hours, per hour').waitFor({ timeout: 10_000 });
      const hourly = page.getByRole('application', { name: /Occurrences per hour, last 24 hours/ });
      await hourly.waitFor({ timeout: 10_000 });
      expect((await hourly.boundingBox())?.width ?? 0).toBeLessThanOrEqual(width);
      await expect
        .poll(() => page.locator('.occurrences canvas').count(), { timeout: 20_000 })
        .toBeGreaterThan(0);
      await hourly.focus();
      await page.keyboard.press('End');
      const tip = page.locator('.occurrences .chart-tip');
      await expect.poll(() => tip.isVisible()).toBe(true);
      expect(await tip.textContent()).toMatch(/Occurrences: [1-3]/);
      expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      if (width === 390) {
        await page.getByLabel('Status').selectOption('resolved');
        await page.goto(`${base}/errors`);
        await page.getByRole('link', { name: 'RangeError' }).waitFor();
        expect(await page.getByRole('link', { name: 'TypeError' }).count()).toBe(0);
        // Keyboard: the status tabs move with the arrow keys.
        await page.getByRole('tab', { name: 'Active' }).focus();
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('Enter');
        await page.getByRole('link', { name: 'TypeError' }).waitFor();
      }
      await context.close();
    }
  }, 90_000);
});
