import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTeam } from '../../src/store/meta/teams.js';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';
import { capture, uuid } from '../helpers/query-lists.js';

if (!hasChromium) console.warn(`console-data-settings: skipped, no Chromium at ${CHROMIUM}`);

const SHOTS = process.env.BURROW_SHOTS_DIR ?? join(process.cwd(), '.tmp', 'screenshots', 'data');

/** Settings → Data: retention periods saved with the keyboard, and the disk the project uses. */
describe.skipIf(!hasChromium)(`console data settings in headless Chromium (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    c = await startConsoleBrowser('data-settings');
    ({ h, base, browser } = c);
    await capture(h, h.boot.project_api_key, h.boot.project_id, [
      {
        event: '$pageview',
        distinct_id: 'a',
        uuid: uuid(),
        timestamp: new Date(Date.now() - 50 * 86_400_000).toISOString(),
      },
      { event: '$pageview', distinct_id: 'a', uuid: uuid(), timestamp: new Date().toISOString() },
    ]);
  });
  afterAll(async () => c?.close());

  it('shows the disk used, saves a retention period, and refuses a bad one with the reason', async () => {
    for (const [width, scheme] of [
      [1280, 'light'],
      [390, 'dark'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await c.logIn(page);
      await page.goto(`${base}/settings/data`);
      const disk = page.getByRole('region', { name: 'Disk used' });
      await expect.poll(() => disk.getByRole('row', { name: /Events 2/ }).count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, `data-${width}-${scheme}.png`), fullPage: true });
      await context.close();
    }

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await c.logIn(page);
    await page.goto(`${base}/settings/data`);
    const days = page.getByLabel(/Keep events for/);
    await days.fill('30');
    await page.getByLabel('Keep recordings for').selectOption('90d');
    await days.press('Enter');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(1);
    // Read from the store: a key's cached principal may hold the project as it was (AUTH_CACHE_TTL_MS).
    await expect
      .poll(async () => (await findTeam(h.stores.meta.db, h.boot.project_id))?.settings)
      .toMatchObject({ events_retention_days: 30, session_recording_retention_period: '90d' });

    // The browser's own check lets 0 through only if forced: send it past the input's min.
    await days.evaluate((el) => el.removeAttribute('min'));
    await days.fill('0');
    await days.press('Enter');
    await expect
      .poll(() => page.getByText(/greater than or equal to 1|events_retention_days/).count())
      .toBeGreaterThan(0);
    await context.close();
  }, 120_000);

  it('lists a person deletion running in the background until it is done', async () => {
    await capture(h, h.boot.project_api_key, h.boot.project_id, [
      { event: '$pageview', distinct_id: 'gone', uuid: uuid(), timestamp: new Date().toISOString() },
    ]);
    const list = await h.request('GET', `/api/projects/${h.boot.project_id}/persons/?distinct_id=gone`);
    const id = (list.json() as { results: Array<{ id: string }> }).results[0]?.id;
    const del = await h.request(
      'DELETE',
      `/api/projects/${h.boot.project_id}/persons/${id}/?delete_events=true`,
    );
    expect(del.statusCode).toBe(204);

    const context = await browser.newContext({ viewport: { width: 390, height: 900 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await c.logIn(page);
    await page.goto(`${base}/settings/data`);
    const section = page.getByRole('region', { name: 'Deletions' });
    const row = section.getByRole('row', { name: /Events and recordings of 1 person/ });
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.getByText('Done').count(), { timeout: 20_000 }).toBe(1);
    expect(await row.getByRole('progressbar').getAttribute('value')).toBe('1');
    await page.screenshot({ path: join(SHOTS, 'deletions-390-dark.png'), fullPage: true });
    await context.close();
  }, 60_000);
});
