import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-contrast: skipped, no Chromium at ${CHROMIUM}`);

/** WCAG AA for body text; the brief holds every text to it, large or not. */
const AA = 4.5;

/** The in-page measurement, as source text: it runs in Chromium, not in Node. */
const PROBE = readFileSync(new URL('./contrast-probe.js', import.meta.url), 'utf8').replace(
  'export function',
  'function',
);

interface Low {
  page: string;
  element: string;
  text: string;
  ratio: number;
  color: string;
  background: string;
}

/** Every page of the console, light and dark, with content in it. */
describe.skipIf(!hasChromium)(`console text contrast in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'contrast-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    const now = Date.now();
    const batch = Array.from({ length: 60 }, (_, i) => ({
      event: i % 3 === 0 ? 'signed up' : '$pageview',
      distinct_id: `user-${i % 7}`,
      timestamp: new Date(now - (i % 6) * 86_400_000 - i * 1000).toISOString(),
      properties: { $current_url: `https://shop.example/p/${i % 4}`, $browser: i % 2 ? 'Firefox' : 'Chrome' },
    }));
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
    await h.request('POST', `/api/projects/${h.boot.project_id}/feature_flags/`, {
      body: { key: 'new-checkout', name: 'New checkout', filters: { groups: [{ rollout_percentage: 50 }] } },
    });
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function visit(page: Page, path: string, ready: string) {
    await page.goto(`${base}${path}`);
    await page.locator(ready).first().waitFor({ timeout: 20_000 });
    // Let lazy parts (charts, editor highlighting) settle before reading colours.
    await page.waitForTimeout(400);
  }

  for (const scheme of ['light', 'dark'] as const) {
    it(`keeps every text at ${AA}:1 or more in the ${scheme} theme`, async () => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        colorScheme: scheme,
      });
      const page = await context.newPage();
      await page.goto(`${base}/login`);
      const low: Low[] = [];
      const measure = async (name: string) => {
        const found = (await page.evaluate(`${PROBE}\nlowContrast(${AA})`)) as Omit<Low, 'page'>[];
        for (const l of found) low.push({ page: name, ...l });
      };
      await page.locator('h1').first().waitFor();
      await measure('login');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`${base}/`);

      await visit(page, '/', '.feed li');
      await measure('home');
      await visit(page, '/insights', '.chart canvas');
      await measure('insights');
      await visit(page, '/sql', '.cm-content');
      await page.locator('.cm-content').click();
      await page.keyboard.press('Control+a');
      await page.keyboard.type(
        "SELECT event, count() AS n, 'text' AS s, 1.5 AS x FROM events WHERE event != 'x' GROUP BY event ORDER BY n DESC LIMIT 10",
      );
      await page.keyboard.press('Control+Enter');
      await page.locator('.data-table .trow').first().waitFor({ timeout: 20_000 });
      await page.locator('.cm-content').blur();
      await measure('sql');
      for (const [path, ready] of [
        ['/web', '.wa-tile[data-key]'],
        ['/events', 'table.events tbody tr'],
        ['/people', 'main table tbody tr'],
        ['/recordings', 'main h1'],
        ['/dashboards', 'main h1'],
        ['/cohorts', 'main h1'],
        ['/feature_flags', 'main h1'],
        ['/settings', 'main h1'],
      ] as const) {
        await visit(page, path, ready);
        await measure(path.slice(1));
      }
      await context.close();
      // One line per kind of failure (page, element, colours), with one example text.
      const kinds = new Map<string, string>();
      for (const l of low) {
        const key = `${l.page}: ${l.element} ${l.color} on ${l.background} = ${l.ratio}:1`;
        if (!kinds.has(key)) kinds.set(key, l.text);
      }
      expect([...kinds].map(([k, text]) => `${k} ("${text}")`)).toEqual([]);
      // A dozen pages, Home with the web analytics tiles among them (most events are pageviews).
    }, 90_000);
  }
});
