import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`cohort-breakdown: skipped, no Chromium at ${CHROMIUM}`);

/** Screenshots are for people to look at; nothing compares pixels. */
const SHOTS = process.env.SHOTS_DIR ?? '.tmp/screenshots/cohort-breakdown';

/** A trend broken down by a cohort from the insight editor, as a person does it. */
describe.skipIf(!hasChromium)(`cohort breakdown in headless Chromium (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'cohort-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
    // Six people viewing pages over the last days; two of them in the Netherlands.
    const now = Date.now();
    const batch = Array.from({ length: 30 }, (_, i) => ({
      event: '$pageview',
      distinct_id: `person-${i % 6}`,
      timestamp: new Date(now - (i % 3) * 86_400_000 - i * 1000).toISOString(),
      properties: { $set: { country: i % 6 < 2 ? 'Netherlands' : 'France' } },
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

  it('creates a cohort, breaks a trend down by it and sees the series labelled with its name', async () => {
    const project = h.boot.project_id;
    // The persons must exist before the cohort is calculated.
    await expect
      .poll(
        async () =>
          (await h.request('GET', `/api/projects/${project}/persons/?limit=10`)).json().results?.length ?? 0,
        { timeout: 20_000 },
      )
      .toBe(6);
    const created = await h.request('POST', `/api/projects/${project}/cohorts/`, {
      body: {
        name: 'Dutch visitors',
        filters: {
          properties: {
            type: 'OR',
            values: [
              {
                type: 'AND',
                values: [{ key: 'country', value: 'Netherlands', type: 'person', operator: 'exact' }],
              },
            ],
          },
        },
      },
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as number;
    await expect
      .poll(
        async () => {
          const c = (await h.request('GET', `/api/projects/${project}/cohorts/${id}/`)).json();
          return c.last_calculation && !c.is_calculating ? c.count : null;
        },
        { timeout: 20_000 },
      )
      .toBe(2);

    for (const [width, scheme] of [
      [1280, 'light'],
      [390, 'dark'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await logIn(page);
      await page.goto(`${base}/insights`);
      await expect.poll(() => page.locator('.chart canvas').count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await page.getByLabel('Breakdown type').selectOption('cohort');
      const picker = page.getByLabel('Breakdown by cohorts');
      await expect.poll(() => picker.locator('option').allTextContents()).toContain('Dutch visitors');
      await picker.selectOption([{ label: 'Dutch visitors' }, { label: 'All users' }]);
      await expect
        .poll(() => rows(page), { timeout: 20_000 })
        .toEqual(expect.arrayContaining(['$pageview - Dutch visitors', '$pageview - all users']));
      expect(await page.getByRole('alert').count()).toBe(0);
      const query = JSON.parse(new URL(page.url()).searchParams.get('q') ?? '{}');
      const source = query.source ?? query;
      expect(source.breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: ['all', id] });
      await page.screenshot({ path: `${SHOTS}/cohort-breakdown-${width}-${scheme}.png`, fullPage: true });

      // The whole insight filtered to persons not in the cohort: "all users" drops to the French.
      await page.getByRole('button', { name: 'Add filter to the insight' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Property type').selectOption('cohort');
      await dialog.getByLabel('Membership').selectOption('is_not');
      await expect
        .poll(() => dialog.getByLabel('Cohort', { exact: true }).locator('option').allTextContents())
        .toContain('Dutch visitors');
      await dialog.getByLabel('Cohort', { exact: true }).selectOption({ label: 'Dutch visitors' });
      await page.screenshot({ path: `${SHOTS}/cohort-filter-${width}-${scheme}.png`, fullPage: true });
      await dialog.getByRole('button', { name: 'Apply filter' }).click();
      await expect
        .poll(() => page.getByRole('button', { name: /^Edit filter not in cohort Dutch visitors/ }).count())
        .toBe(1);
      const totals = () => page.locator('table.simple tbody tr td:nth-child(2)').allTextContents();
      await expect.poll(totals, { timeout: 20_000 }).toEqual(['20', '0']);
      const filtered = JSON.parse(new URL(page.url()).searchParams.get('q') ?? '{}');
      expect((filtered.source ?? filtered).properties).toEqual([
        { key: 'id', type: 'cohort', operator: 'not_in', value: id },
      ]);
      await context.close();
    }
  }, 90_000);

  it('keeps cohort names and choices on a reload, also when the cohort list arrives late; funnels too', async () => {
    const project = h.boot.project_id;
    const list = (await h.request('GET', `/api/projects/${project}/cohorts/`)).json() as {
      results: Array<{ id: number; name: string }>;
    };
    const id = list.results.find((c) => c.name === 'Dutch visitors')?.id as number;
    const trend = {
      kind: 'InsightVizNode',
      source: {
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }],
        properties: [{ key: 'id', type: 'cohort', operator: 'not_in', value: id }],
        breakdownFilter: { breakdown_type: 'cohort', breakdown: ['all', id] },
      },
    };
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await logIn(page);
    // The cohort list answers 1.5 s late: the saved choice must survive until it does.
    await page.route('**/api/projects/*/cohorts/?limit=200', async (route) => {
      await new Promise((r) => setTimeout(r, 1500));
      await route.continue();
    });
    await page.goto(`${base}/insights?q=${encodeURIComponent(JSON.stringify(trend))}`);
    const picker = page.getByLabel('Breakdown by cohorts');
    await expect
      .poll(() =>
        picker.evaluate((s: { selectedOptions: ArrayLike<{ value: string }> }) =>
          Array.from(s.selectedOptions, (o) => o.value).sort(),
        ),
      )
      .toEqual(['all', String(id)].sort());
    await expect
      .poll(
        () =>
          picker.evaluate((s: { selectedOptions: ArrayLike<{ text: string }> }) =>
            Array.from(s.selectedOptions, (o) => o.text).sort(),
          ),
        { timeout: 10_000 },
      )
      .toEqual(['All users', 'Dutch visitors']);
    await expect
      .poll(() => page.getByRole('button', { name: /^Edit filter not in cohort Dutch visitors/ }).count(), {
        timeout: 10_000,
      })
      .toBe(1);
    await page.unroute('**/api/projects/*/cohorts/?limit=200');

    // The same breakdown on a funnel: offered, answered, each group named after its cohort.
    const funnel = {
      kind: 'InsightVizNode',
      source: {
        kind: 'FunnelsQuery',
        series: [
          { kind: 'EventsNode', event: '$pageview', name: '$pageview' },
          { kind: 'EventsNode', event: '$pageview', name: '$pageview' },
        ],
        breakdownFilter: { breakdown_type: 'cohort', breakdown: [id, 'all'] },
      },
    };
    await page.goto(`${base}/insights?q=${encodeURIComponent(JSON.stringify(funnel))}`);
    await expect
      .poll(() => page.getByLabel('Breakdown type').locator('option').allTextContents())
      .toContain('Cohort');
    await expect
      .poll(() => page.getByText('Dutch visitors', { exact: false }).count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    // Cohorts overlap: no total that would count a person twice.
    await expect.poll(() => page.getByText('2 cohorts (a person can be in several)').count()).toBe(1);
    expect(await page.getByRole('rowheader', { name: 'Total' }).isVisible()).toBe(false);
    await page.screenshot({ path: `${SHOTS}/funnel-by-cohort.png`, fullPage: true });
    await context.close();
  }, 90_000);
});
