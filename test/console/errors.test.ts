import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';
import { sendRecordings } from '../helpers/recordings.js';

if (!hasChromium) console.warn(`console-errors: skipped, no Chromium at ${CHROMIUM}`);

/** The console's Errors page and an issue's page: volume, status, stack trace as text. */
describe.skipIf(!hasChromium)(`console errors (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;

  const exception = (
    type: string,
    value: string,
    fn: string,
    ago: number,
    who = 'ada',
    session = 'session-1',
  ) => ({
    event: '$exception',
    distinct_id: who,
    timestamp: new Date(Date.now() - ago * 60_000).toISOString(),
    properties: {
      $session_id: session,
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
      exception('TypeError', 'y is not a function', 'applyCoupon', 10, 'bob', 'session-2'),
      exception('RangeError', 'too deep', 'recurse', 5),
    ];
    const res = await h.request('POST', '/batch/', { body: { api_key: h.boot.project_api_key, batch } });
    expect(res.statusCode).toBe(200);
    // Session 1 was recorded, session 2 was not: only the first links to a recording.
    await sendRecordings(h, [
      { sessionId: 'session-1', distinctId: 'ada', start: Date.now() - 31 * 60_000, durationMs: 5_000 },
    ]);
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
      // Who and which sessions it hit, the most recent first; a recorded session links to its recording.
      const affected = page.locator('section[aria-labelledby="affected-heading"]');
      await affected.getByRole('link', { name: 'bob' }).waitFor({ timeout: 15_000 });
      expect(await affected.getByRole('row').allInnerTexts()).toEqual([
        expect.stringMatching(/^Person\s+Session\s+Occurrences\s+Last seen$/),
        expect.stringMatching(/^bob\s+session-2 \(no recording\)\s+1\s/),
        expect.stringMatching(/^ada\s+▶ session-1\s+2\s/),
      ]);
      const watch = affected.getByRole('link', { name: 'Watch the recording of session session-1' });
      expect(await watch.getAttribute('href')).toBe('/recordings/session-1');
      expect(await affected.getByRole('link', { name: 'ada' }).getAttribute('href')).toMatch(
        /^\/people\/[0-9a-f-]{36}$/,
      );
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

  it('creates suppression and grouping rules from property filters, reorders and deletes them', async () => {
    const shots = process.env.BURROW_SHOTS_DIR ?? join(process.cwd(), '.tmp', 'screenshots', 'errors');
    mkdirSync(shots, { recursive: true });
    const rules = (kind: string) =>
      h
        .request('GET', `/api/environments/${h.boot.project_id}/error_tracking/${kind}/`)
        .then((r) => r.json());
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      colorScheme: 'light',
    });
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await logIn(page);
    await page.goto(`${base}/errors`);
    await page.getByRole('heading', { name: 'Rules', exact: true }).waitFor();
    await expect.poll(() => page.getByText('None yet.').count()).toBe(2);

    async function addRule(kind: string, key: string, operator: string, value: string, description = '') {
      await page.getByLabel('Kind').selectOption(kind);
      await page.getByRole('button', { name: 'Add filter to the new rule' }).click();
      await page.getByLabel('Property', { exact: true }).fill(key);
      await page.getByLabel('Operator').selectOption(operator);
      await page.getByLabel('Value', { exact: true }).fill(value);
      await page.getByRole('button', { name: 'Apply filter' }).click();
      if (description) await page.getByLabel('Description').fill(description);
      await page.getByRole('button', { name: 'Add rule' }).click();
    }
    await addRule('suppression_rules', '$exception_types', 'exact', 'ResizeObserverError');
    const suppression = page.getByRole('list', { name: 'Suppression rules' });
    await suppression.getByText('$exception_types = ResizeObserverError').waitFor();
    expect((await rules('suppression_rules')).results[0].filters).toEqual({
      type: 'AND',
      values: [{ key: '$exception_types', type: 'event', operator: 'exact', value: ['ResizeObserverError'] }],
    });
    await addRule('grouping_rules', '$exception_values', 'icontains', 'timeout', 'every timeout');
    await addRule('grouping_rules', '$exception_values', 'icontains', 'connection', 'every connection error');
    const grouping = page.getByRole('list', { name: 'Grouping rules' });
    await grouping.getByText('every connection error').waitFor();
    // New rules get order 0 (PostHog's): order by the API, then move the second up.
    const before = (await rules('grouping_rules')).results.map((r: { description: string }) => r.description);
    expect(before).toHaveLength(2);
    await grouping.getByRole('button', { name: 'Move rule 2 up' }).click();
    await expect
      .poll(async () =>
        (await rules('grouping_rules')).results.map((r: { description: string }) => r.description),
      )
      .toEqual([before[1], before[0]]);
    await expect.poll(() => grouping.locator('li').first().textContent()).toContain(before[1]);
    await page.screenshot({ path: join(shots, 'rules-1280-light.png'), fullPage: true });
    for (const [width, scheme] of [
      [1280, 'dark'],
      [390, 'light'],
    ] as const) {
      const other = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const p = await other.newPage();
      await logIn(p);
      await p.goto(`${base}/errors`);
      await p.getByRole('list', { name: 'Grouping rules' }).getByText('every timeout').waitFor();
      expect(await p.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
      await p.screenshot({ path: join(shots, `rules-${width}-${scheme}.png`), fullPage: true });
      await other.close();
    }
    await suppression.getByRole('button', { name: 'Delete rule 1' }).click();
    await expect.poll(async () => (await rules('suppression_rules')).results.length).toBe(0);
    await expect.poll(() => page.getByText('None yet.').count()).toBe(1);
    await context.close();
  }, 90_000);
});
