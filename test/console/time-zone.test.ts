import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-time-zone: skipped, no Chromium at ${CHROMIUM}`);

/** A browser in New York looking at a project kept in Tokyo: every page shows Tokyo's times, named. */
describe.skipIf(!hasChromium)(`console times in the project's zone (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'zone-owner@example.com';
  const password = 'correct horse battery';
  // A minute ago, to the second: the events list and the live feed both show it.
  const at = new Date(Math.floor((Date.now() - 60_000) / 1000) * 1000);
  const clock = (timeZone: string) =>
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    }).format(at);

  beforeAll(async () => {
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    const patched = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: { timezone: 'Asia/Tokyo' },
    });
    expect(patched.statusCode).toBe(200);
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: h.boot.project_api_key,
        batch: [
          { event: 'zone check', distinct_id: 'traveller', timestamp: at.toISOString(), properties: {} },
        ],
      }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('shows Events, Home and People times in the project zone with its name, not the browser zone', async () => {
    const context = await browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${base}/`);
    expect(clock('Asia/Tokyo')).not.toBe(clock('America/New_York'));

    await expect
      .poll(() => page.locator('.feed li').first().textContent(), { timeout: 20_000 })
      .toContain(clock('Asia/Tokyo'));
    expect(await page.locator('section', { hasText: 'Live events' }).locator('h2').textContent()).toContain(
      'Asia/Tokyo',
    );

    await page.getByRole('link', { name: 'Events' }).click();
    await expect
      .poll(() => page.locator('table.events thead').textContent(), { timeout: 20_000 })
      .toContain('Time (Asia/Tokyo)');
    await expect
      .poll(() => page.locator('table.events tbody tr').first().textContent(), { timeout: 20_000 })
      .toContain(clock('Asia/Tokyo'));

    await page.getByRole('link', { name: 'People' }).click();
    await expect
      .poll(() => page.locator('main table thead').textContent(), { timeout: 20_000 })
      .toContain('First seen (Asia/Tokyo)');
    await context.close();
  });
});
