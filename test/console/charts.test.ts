import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-charts: skipped, no Chromium at ${CHROMIUM}`);

const SHOTS = join(process.cwd(), '.tmp', 'screenshots');
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge', 'Opera'];

/** Charts read as a person reads them: every group drawn and named, values on hover and by keyboard. */
describe.skipIf(!hasChromium)(`console charts in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'charts-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    // Five browsers, each with its own number of visitors, of whom some sign up.
    const now = Date.now();
    const batch = BROWSERS.flatMap((name, b) =>
      Array.from({ length: 3 + b * 2 }, (_, u) => {
        const person = `${name}-${u}`;
        const at = (offset: number) => new Date(now - (u % 5) * 86_400_000 - offset).toISOString();
        const events = [
          { event: '$pageview', distinct_id: person, timestamp: at(60_000), properties: { $browser: name } },
        ];
        if (u % 2 === 0)
          events.push({
            event: 'signed up',
            distinct_id: person,
            timestamp: at(0),
            properties: { $browser: name },
          });
        return events;
      }).flat(),
    );
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
    // Wait until the events are stored: the charts below count them.
    for (let i = 0; i < 200; i++) {
      const r = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
        body: { query: { kind: 'HogQLQuery', query: 'SELECT count() FROM events' } },
      });
      if (Number(r.json().results?.[0]?.[0]) === batch.length) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
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

  async function openPage(width = 1280) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await logIn(page);
    return { page, context };
  }

  it('draws a funnel broken down by $browser as five labelled groups with a legend and a total', async () => {
    const { page, context } = await openPage();
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.getByRole('tab', { name: 'Funnels' }).click();
    await page.getByLabel('Step 2').fill('signed up');
    await page.getByLabel('Step 2').press('Tab');
    await page.getByLabel('Breakdown by event property').fill('$browser');
    await page.getByLabel('Breakdown by event property').press('Tab');

    const legend = page.locator('.funnel-groups .legend > span');
    await expect.poll(() => legend.count(), { timeout: 20_000 }).toBe(5);
    const names = await legend.allTextContents();
    for (const name of BROWSERS) expect(names.some((n) => n.includes(name))).toBe(true);
    // Opera has the most visitors (11), so it leads; each group's bars are drawn at both steps.
    expect(names[0]).toContain('Opera');
    expect(await page.locator('.funnel-groups svg rect.bar').count()).toBe(10);
    const rows = await page.locator('.funnel-table tbody tr').allTextContents();
    expect(rows).toHaveLength(5);
    // Entered: 3 + 5 + 7 + 9 + 11 = 35; signed up: every other visitor, 2 + 3 + 4 + 5 + 6 = 20.
    const total = await page.locator('.funnel-table tfoot tr').textContent();
    expect(total).toMatch(/^Total35\s*20\s*57\.1%$/);
    await page.screenshot({ path: join(SHOTS, 'funnel-breakdown.png'), fullPage: true });
    await context.close();
  });

  it('draws stickiness of two series as grouped bars that do not overlap, with values on hover', async () => {
    const { page, context } = await openPage();
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.getByRole('tab', { name: 'Stickiness' }).click();
    await page.getByRole('button', { name: '+ Add series' }).click();
    await page.getByLabel('Series 2').fill('signed up');
    await page.getByLabel('Series 2').press('Tab');
    const bars = page.locator('.bars-chart rect.bar');
    await expect
      .poll(() => page.locator('.bars-chart rect.bar[data-series="1"]').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    const boxes = await bars.evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return {
          series: el.getAttribute('data-series'),
          bucket: el.getAttribute('data-bucket'),
          x: r.x,
          w: r.width,
        };
      }),
    );
    // In each bucket, no two series' bars share any horizontal span.
    for (const a of boxes)
      for (const b of boxes)
        if (a.bucket === b.bucket && a.series !== b.series)
          expect(a.x + a.w <= b.x + 0.01 || b.x + b.w <= a.x + 0.01).toBe(true);

    // Hover the first bucket: the tooltip names it and gives both series' values.
    const first = page.locator('.bars-chart rect.bar[data-bucket="0"][data-series="0"]');
    const box = (await first.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + Math.max(1, box.height - 2));
    const tip = page.locator('.bars-chart .chart-tip');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.textContent()).toMatch(/\$pageview: \d+.*signed up: \d+/);
    // By keyboard: focus the chart, End goes to the last bucket.
    await page.mouse.move(0, 0);
    await page.locator('.bars-chart svg').focus();
    await page.keyboard.press('End');
    await expect.poll(() => tip.textContent()).toMatch(/^\d+ days?/);
    await page.screenshot({ path: join(SHOTS, 'stickiness-grouped.png'), fullPage: true });
    await context.close();
  });

  it('shows a single-series trend value on hover and with the arrow keys', async () => {
    const { page, context } = await openPage();
    await page.getByRole('link', { name: 'Insights' }).click();
    const canvas = page.locator('.chart canvas').first();
    await expect.poll(() => canvas.count(), { timeout: 20_000 }).toBeGreaterThan(0);
    const tip = page.locator('.chart-box .chart-tip');
    // The chart can be drawn again when a newer answer arrives: hover until its tooltip shows.
    await expect
      .poll(
        async () => {
          const over = await page.locator('.chart .u-over').first().boundingBox();
          if (!over) return false;
          await page.mouse.move(over.x + over.width - 3, over.y + over.height / 2);
          return tip.isVisible();
        },
        { timeout: 20_000 },
      )
      .toBe(true);
    expect(await tip.textContent()).toMatch(/\$pageview: \d+/);
    await page.mouse.move(0, 0);
    await expect.poll(() => tip.isVisible()).toBe(false);
    await page.locator('.chart').first().focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.textContent()).toMatch(/\$pageview: \d+/);
    await page.screenshot({ path: join(SHOTS, 'trend-tooltip.png') });
    await context.close();
  });

  it('keeps SQL cells under their headers across 5 000 wide rows, with a bounded DOM', async () => {
    const { page, context } = await openPage();
    await page.getByRole('link', { name: 'SQL' }).click();
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+a');
    await page.keyboard.type(
      "SELECT number AS n, repeat('w', number % 70) AS wide, concat('id-', toString(number * 7919)) AS id, " +
        "number % 3 = 0 AS flag, repeat('ab ', number % 25) AS text, number * 1.5 AS half FROM numbers(5000) LIMIT 5000",
    );
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('main').textContent(), { timeout: 20_000 }).toMatch(/5,000 rows in/);
    const table = page.locator('.data-table');

    const aligned = async () =>
      table.evaluate((el) => {
        const heads = [...el.querySelectorAll('.thead [role="columnheader"]')].map((c) =>
          c.getBoundingClientRect(),
        );
        const drift: number[] = [];
        for (const row of el.querySelectorAll('.trow')) {
          [...row.querySelectorAll('[role="cell"]')].forEach((c, j) => {
            const r = c.getBoundingClientRect();
            drift.push(Math.abs(r.left - heads[j]!.left), Math.abs(r.width - heads[j]!.width));
          });
        }
        return { max: Math.max(...drift), rows: el.querySelectorAll('.trow').length };
      });
    const top = await aligned();
    expect(top.max).toBeLessThan(0.5);
    expect(top.rows).toBeLessThan(80);
    // Scrolled to the middle and sideways: still aligned, still few rows in the DOM.
    await table.evaluate((el) => {
      el.scrollTop = el.scrollHeight / 2;
      el.scrollLeft = 200;
    });
    await expect
      .poll(async () => (await table.locator('.trow').first().getAttribute('aria-rowindex')) ?? '0')
      .not.toBe('2');
    const middle = await aligned();
    expect(middle.max).toBeLessThan(0.5);
    expect(middle.rows).toBeLessThan(80);
    await page.screenshot({ path: join(SHOTS, 'sql-wide-rows.png') });
    await context.close();
  });
});
