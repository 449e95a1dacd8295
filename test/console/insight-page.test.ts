import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`insight-page: skipped, no Chromium at ${CHROMIUM}`);

/** Screenshots are for people to look at; nothing compares pixels. */
const SHOTS = process.env.SHOTS_DIR ?? '.tmp/screenshots/insight-page';

/** The insight editor as a person uses it: build, filter, save, reload, rename, duplicate, delete. */
describe.skipIf(!hasChromium)(`insight page in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'insight-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    // Six people over the last days: pro and free plans, in two countries (person properties).
    const now = Date.now();
    const batch = Array.from({ length: 60 }, (_, i) => ({
      event: '$pageview',
      distinct_id: `person-${i % 6}`,
      timestamp: new Date(now - (i % 5) * 86_400_000 - i * 1000).toISOString(),
      properties: {
        plan: i % 6 < 4 ? 'pro' : 'free',
        $set: { country: i % 6 < 2 ? 'Netherlands' : 'France' },
      },
    }));
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch }),
    });
    expect(res.status).toBe(200);
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
  const rows = (page: Page) => page.locator('table.simple tbody tr td:first-child').allTextContents();
  const savedInsight = async (shortId: string) => {
    const res = await h.request('GET', `/api/projects/${h.boot.project_id}/insights/?short_id=${shortId}`);
    return res.json().results[0] as
      | { name: string; description: string; query: { source: Record<string, unknown> } }
      | undefined;
  };

  it('builds a filtered, broken-down DAU insight, keeps it in the URL, saves, renames, duplicates and deletes it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await logIn(page);
    await page.getByRole('link', { name: 'Insights' }).click();
    await expect.poll(() => page.locator('.chart canvas').count(), { timeout: 20_000 }).toBeGreaterThan(0);

    // Unique users (DAU) per day.
    await page.getByLabel('Measure').selectOption('dau');

    // A filter picker closes with Escape and gives the focus back to the button that opened it.
    const addInsightFilter = page.getByRole('button', { name: 'Add filter to the insight' });
    await addInsightFilter.click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(1);
    await expect.poll(() => page.evaluate('document.activeElement?.tagName')).toBe('INPUT');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect
      .poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')"))
      .toBe('Add filter to the insight');

    // Series 1 only counts pro users: the property, then a value Burrow suggests from its events.
    await page.getByRole('button', { name: 'Add filter to the 1st series' }).click();
    const dialog = page.getByRole('dialog', { name: 'Property filter on the 1st series' });
    await dialog.getByLabel('Property', { exact: true }).fill('plan');
    const suggestions = dialog.getByRole('group', { name: 'Suggested values' });
    await expect
      .poll(() => suggestions.getByRole('button').allTextContents(), { timeout: 20_000 })
      .toEqual(expect.arrayContaining(['pro', 'free']));
    await suggestions.getByRole('button', { name: 'pro', exact: true }).click();
    expect(await dialog.getByLabel('Value').inputValue()).toBe('pro');
    await page.screenshot({ path: `${SHOTS}/filter-picker-1280.png`, fullPage: true });
    await dialog.getByRole('button', { name: 'Apply filter' }).click();
    await expect.poll(() => page.getByRole('button', { name: /^Edit filter plan = pro/ }).count()).toBe(1);

    // Broken down by a person property.
    await page.getByLabel('Breakdown type').selectOption('person');
    await page.getByLabel('Breakdown by person property').fill('country');
    await page.getByLabel('Breakdown by person property').press('Tab');
    // Pro users are persons 0-3: two in the Netherlands, two in France.
    await expect
      .poll(() => rows(page), { timeout: 20_000 })
      .toEqual(expect.arrayContaining(['Netherlands', 'France']));
    await expect.poll(() => page.getByRole('status').count(), { timeout: 20_000 }).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);

    // The URL holds the query PostHog's frontend would send; a reload reopens the same form.
    const query = JSON.parse(new URL(page.url()).searchParams.get('q') ?? '{}');
    expect(query).toMatchObject({
      kind: 'TrendsQuery',
      series: [
        {
          event: '$pageview',
          math: 'dau',
          properties: [{ key: 'plan', type: 'event', operator: 'exact', value: ['pro'] }],
        },
      ],
      breakdownFilter: { breakdown: 'country', breakdown_type: 'person' },
    });
    await page.reload();
    await expect.poll(() => page.getByLabel('Measure').inputValue(), { timeout: 20_000 }).toBe('dau');
    expect(await page.getByLabel('Breakdown by person property').inputValue()).toBe('country');
    expect(await page.getByRole('button', { name: /^Edit filter plan = pro/ }).count()).toBe(1);
    await expect
      .poll(() => rows(page), { timeout: 20_000 })
      .toEqual(expect.arrayContaining(['Netherlands', 'France']));
    for (const [width, scheme] of [
      [1280, 'light'],
      [390, 'light'],
      [390, 'dark'],
      [1280, 'dark'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `${SHOTS}/new-insight-${width}-${scheme}.png`, fullPage: true });
    }
    // The picker narrow and dark, with the person properties Burrow knows suggested.
    await page.setViewportSize({ width: 390, height: 900 });
    await addInsightFilter.click();
    const insightDialog = page.getByRole('dialog', { name: 'Property filter on the insight' });
    await insightDialog.getByLabel('Property type').selectOption('person');
    await insightDialog.getByLabel('Property', { exact: true }).fill('country');
    await expect
      .poll(
        () => insightDialog.getByRole('group', { name: 'Suggested values' }).getByRole('button').count(),
        {
          timeout: 20_000,
        },
      )
      .toBe(2);
    await page.screenshot({ path: `${SHOTS}/filter-picker-390-dark.png`, fullPage: true });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });

    // Saved: the insight gets its own page, /insights/{short_id}.
    await page.getByLabel('Name').fill('Pro users by country');
    await page.getByRole('button', { name: 'Save insight' }).click();
    await page.waitForURL(/\/insights\/[A-Za-z0-9]+$/);
    const shortId = new URL(page.url()).pathname.split('/').pop() as string;
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('Pro users by country');
    // Several live regions can be on the page (the calculation's progress too): find the one that says so.
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'Saved as' }).count(), { timeout: 20_000 })
      .toBe(1);
    expect((await savedInsight(shortId))?.query.source).toMatchObject({
      series: [{ math: 'dau', properties: [{ key: 'plan', value: ['pro'] }] }],
      breakdownFilter: { breakdown: 'country', breakdown_type: 'person' },
    });
    await page.reload();
    await expect.poll(() => page.getByLabel('Measure').inputValue(), { timeout: 20_000 }).toBe('dau');
    expect(await page.getByRole('button', { name: /^Edit filter plan = pro/ }).count()).toBe(1);

    // Rename (Enter saves) and describe it.
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Insight name').fill('Pro DAU by country');
    await page.getByLabel('Insight name').press('Enter');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Pro DAU by country');
    await page.getByLabel('Description').fill('Who pays, where');
    await page.getByLabel('Description').press('Tab');
    await expect.poll(() => page.getByText('Description saved.').count()).toBe(1);
    expect(await savedInsight(shortId)).toMatchObject({
      name: 'Pro DAU by country',
      description: 'Who pays, where',
    });

    // An edit is unsaved until saved, and survives a reload meanwhile.
    await page.getByLabel('Date range').selectOption('-30d');
    await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('q')).toContain('-30d');
    await page.reload();
    await expect.poll(() => page.getByLabel('Date range').inputValue(), { timeout: 20_000 }).toBe('-30d');
    expect(await page.getByText('Unsaved changes').count()).toBe(1);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByText('Changes saved.').count()).toBe(1);
    // The badge goes with the next render after the save's answer: waited for, not read at once.
    await expect.poll(() => page.getByText('Unsaved changes').count()).toBe(0);
    expect(new URL(page.url()).search).toBe('');
    expect((await savedInsight(shortId))?.query.source).toMatchObject({ dateRange: { date_from: '-30d' } });
    for (const [width, scheme] of [
      [1280, 'light'],
      [1280, 'dark'],
      [390, 'dark'],
      [390, 'light'],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: `${SHOTS}/saved-insight-${width}-${scheme}.png`, fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 900 });

    // Duplicate: a copy with its own page.
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('Pro DAU by country (copy)');
    const copyId = new URL(page.url()).pathname.split('/').pop() as string;
    expect(copyId).not.toBe(shortId);
    expect((await savedInsight(copyId))?.query.source).toMatchObject({ dateRange: { date_from: '-30d' } });

    // Delete the copy, asked first; the original stays.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.screenshot({ path: `${SHOTS}/delete-confirm-1280.png`, fullPage: true });
    await page.getByRole('button', { name: 'Delete insight' }).click();
    await page.waitForURL(`${base}/insights`);
    expect(await savedInsight(copyId)).toBeUndefined();
    expect(await savedInsight(shortId)).toBeDefined();
    await expect
      .poll(() => page.locator('.saved-list li a').allTextContents())
      .toEqual(['Pro DAU by country']);

    // The Insights menu item starts a new insight, even from an edited one on the same page.
    await page.getByLabel('Measure').selectOption('weekly_active');
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toContain('weekly_active');
    await page.getByRole('link', { name: 'Insights', exact: true }).click();
    await expect.poll(() => page.getByLabel('Measure').inputValue()).toBe('total');
    expect(new URL(page.url()).search).toBe('');

    // Retention by week over the last 30 days: the weeks from the one 30 days back (5 or 6 by the
    // weekday), not 8 weeks back.
    await page.getByRole('tab', { name: 'Retention' }).click();
    await page.getByLabel('Period').selectOption('week');
    await page.getByLabel('Date range').selectOption('-30d');
    await expect
      .poll(() => page.locator('table.retention tbody tr').count(), { timeout: 20_000 })
      .toBeGreaterThanOrEqual(5);
    const cohorts = await page.locator('table.retention tbody tr').count();
    expect(cohorts).toBeLessThanOrEqual(6);
    const first = (await page.locator('table.retention tbody tr td .muted').first().textContent()) ?? '';
    expect(Date.now() - Date.parse(first)).toBeLessThan(37 * 86_400_000);
    await context.close();
  });
});
