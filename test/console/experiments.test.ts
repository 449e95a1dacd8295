import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proportionSampleSize } from '../../src/domain/experiments/stats/sample-size.js';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';
import { capture, type RawEvent, uuid } from '../helpers/query-lists.js';

if (!hasChromium) console.warn(`console-experiments: skipped, no Chromium at ${CHROMIUM}`);

/** The contrast test's in-page measurement: every text at WCAG AA (4.5:1) or more. */
const PROBE = readFileSync(new URL('./contrast-probe.js', import.meta.url), 'utf8').replace(
  'export function',
  'function',
);
const lowContrast = (page: Page) => page.evaluate(`${PROBE}\nlowContrast(4.5)`);

/**
 * The console's Experiments page: an experiment created through the form, its sample size before
 * launch, launched from the page; exposures and conversions sent through the capture API with a
 * clear effect (10 % vs 40 %) give a verdict and an interval clear of zero.
 */
describe.skipIf(!hasChromium)(`console experiments (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    c = await startConsoleBrowser('experiments');
    ({ h, base, browser } = c);
  });
  afterAll(async () => c?.close());

  const logIn = (page: Page) => c.logIn(page);

  it('creates, plans, launches and reads an experiment with a clear effect', async () => {
    const project = h.boot.project_id;
    const token = h.boot.project_api_key;
    // The last 14 days: 40 people, 4 of whom bought: a 10 % baseline for the planner.
    const earlier = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const history: RawEvent[] = [];
    for (let i = 0; i < 40; i++) {
      history.push({ event: '$pageview', distinct_id: `old-${i}`, uuid: uuid(), timestamp: earlier });
      if (i < 4)
        history.push({ event: 'purchase', distinct_id: `old-${i}`, uuid: uuid(), timestamp: earlier });
    }
    await capture(h, token, project, history);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await logIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Experiments' }).click();
    await page.getByRole('heading', { name: 'Experiments' }).waitFor();
    await page.getByRole('button', { name: 'New experiment' }).click();
    await page.getByLabel('Name').fill('Checkout button');
    await page.getByLabel('Statistics').selectOption('frequentist');
    await page.getByLabel('Flag key').fill('checkout-button');
    // A split that does not sum to 100 is refused before it is sent.
    await page.getByLabel('Variant 2 split (%)').fill('40');
    await page.getByText('Split sums to 90%: it must sum to 100%.').waitFor();
    expect(await page.getByRole('button', { name: 'Save draft' }).isDisabled()).toBe(true);
    await page.getByLabel('Variant 2 split (%)').fill('50');
    await page.getByText('Split sums to 100%.').waitFor();
    await page.getByLabel('Metric type').selectOption('funnel');
    await page.getByLabel('Step 1 event').fill('purchase');
    await page.screenshot({ path: '/tmp/experiments-form.png', fullPage: true });
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'Checkout button' }).waitFor();
    await page.getByText('Draft', { exact: true }).waitFor();

    const list = (await h.request('GET', `/api/projects/${project}/experiments/`)).json();
    const experiment = list.results[0];
    expect(experiment).toMatchObject({ name: 'Checkout button', feature_flag_key: 'checkout-button' });
    expect(experiment.parameters.feature_flag_variants.map((v: { key: string }) => v.key)).toEqual([
      'control',
      'test',
    ]);
    expect(experiment.metrics[0]).toMatchObject({ metric_type: 'funnel', series: [{ event: 'purchase' }] });

    // Before launch: the planner's numbers are the power formula's on the 10 % baseline.
    const per10 = proportionSampleSize(0.1, 0.1) as number;
    await page.getByText(`${per10.toLocaleString('en-US')} users per variant`).waitFor();
    await page.getByText('10.00% of 40 users converted').waitFor();
    await page.getByLabel('Minimum detectable effect (%)').fill('50');
    const per50 = proportionSampleSize(0.1, 0.5) as number;
    await page.getByText(`${per50.toLocaleString('en-US')} users per variant`).waitFor();
    await page.screenshot({ path: '/tmp/experiments-draft.png', fullPage: true });

    await page.getByRole('button', { name: 'Launch' }).click();
    await page.getByText('Running', { exact: true }).waitFor();
    const launched = (
      await h.request('GET', `/api/projects/${project}/experiments/${experiment.id}/`)
    ).json();
    expect(launched.start_date).not.toBeNull();

    // 100 users a variant: control converts 10 %, test 40 %; exposure first, purchase after.
    const start = Date.parse(launched.start_date);
    const at = (s: number) => new Date(start + s * 1000).toISOString();
    const events: RawEvent[] = [];
    for (const [variant, converting] of [
      ['control', 10],
      ['test', 40],
    ] as const) {
      for (let i = 0; i < 100; i++) {
        const who = `${variant}-${i}`;
        events.push({
          event: '$feature_flag_called',
          distinct_id: who,
          uuid: uuid(),
          timestamp: at(1),
          properties: { $feature_flag: 'checkout-button', $feature_flag_response: variant },
        });
        if (i < converting)
          events.push({ event: 'purchase', distinct_id: who, uuid: uuid(), timestamp: at(2) });
      }
    }
    await capture(h, token, project, events);
    // The window ends now: wait until the events are in the past.
    await page.waitForTimeout(Math.max(0, start + 2500 - Date.now()));
    const verdict = page.getByText(/^test is \d+\.\d% better, p /);
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
      await page.getByRole('button', { name: 'Refresh results' }).click();
      if (await verdict.count()) break;
      await page.waitForTimeout(500);
    }
    // 40 % against 10 %: 300 % better.
    expect(await verdict.textContent()).toMatch(/^test is 300\.0% better, p < 0\.001$/);
    const exposures = page.getByRole('table', { name: 'Exposures per variant' });
    expect(await exposures.getByRole('row', { name: /control/ }).textContent()).toContain('100');
    expect(await exposures.getByRole('row', { name: /test/ }).textContent()).toContain('100');
    // The interval is drawn, and clear of zero.
    const interval = page.getByRole('img', { name: /^test: \+300\.0%, 95% interval \+\d/ });
    await interval.waitFor();
    const bar = await interval.locator('.interval-bar').boundingBox();
    const zero = await interval.locator('.interval-zero').boundingBox();
    expect(bar && zero && bar.x > zero.x + zero.width).toBe(true);
    await page.screenshot({ path: '/tmp/experiments-results.png', fullPage: true });
    expect(await lowContrast(page)).toEqual([]);

    // Bayesian: the same data reads as a chance to win.
    await h.request('PATCH', `/api/projects/${project}/experiments/${experiment.id}/`, {
      body: { stats_config: { method: 'bayesian' } },
    });
    await page.reload();
    await page.getByText(/^test wins with (over )?\d+% probability$/).waitFor();
    await context.close();

    // Narrow and dark, by keyboard: stop, then archive.
    const narrow = await browser.newContext({ viewport: { width: 390, height: 900 }, colorScheme: 'dark' });
    const phone = await narrow.newPage();
    await logIn(phone);
    await phone.goto(`${base}/experiments/${experiment.id}`);
    await phone.getByText(/^test wins with/).waitFor();
    await phone.getByRole('img', { name: /^test:/ }).waitFor();
    const width = await phone.evaluate('document.documentElement.scrollWidth');
    expect(width).toBeLessThanOrEqual(390);
    await phone.screenshot({ path: '/tmp/experiments-390-dark.png', fullPage: true });
    expect(await lowContrast(phone)).toEqual([]);
    await phone.getByRole('button', { name: 'Stop' }).focus();
    await phone.keyboard.press('Enter');
    await phone.getByText('Complete', { exact: true }).waitFor();
    await phone.getByRole('button', { name: 'Archive' }).focus();
    await phone.keyboard.press('Enter');
    await phone.getByText('Archived', { exact: true }).waitFor();
    await phone.goto(`${base}/experiments`);
    const row = phone.getByRole('row', { name: /Checkout button/ });
    expect(await row.textContent()).toContain('Archived');
    expect(await row.textContent()).toContain('checkout-button');
    await phone.screenshot({ path: '/tmp/experiments-list-390-dark.png', fullPage: true });
    // The seen event gave no warning; a metric on an event never received is accepted (as PostHog
    // does) and the page says it will read 0.
    expect(await phone.getByText(/never been seen/).count()).toBe(0);
    const unseen = await h.request('POST', `/api/projects/${project}/experiments/`, {
      body: {
        name: 'Unseen metric',
        feature_flag_key: 'unseen-metric',
        metrics: [
          {
            kind: 'ExperimentMetric',
            metric_type: 'mean',
            source: { kind: 'EventsNode', event: 'never-sent' },
          },
        ],
      },
    });
    expect(unseen.statusCode).toBe(201);
    await phone.goto(`${base}/experiments/${unseen.json().id}`);
    await phone
      .getByRole('status')
      .getByText(/never been seen in this project/)
      .waitFor();
    await phone.screenshot({ path: '/tmp/experiments-unseen-390-dark.png', fullPage: true });

    // From an existing multivariate flag, with a mean metric: its variants become the experiment's.
    const flag = await h.request('POST', `/api/projects/${project}/feature_flags/`, {
      body: {
        key: 'pricing-page',
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: 'control', rollout_percentage: 34 },
              { key: 'cheap', rollout_percentage: 33 },
              { key: 'dear', rollout_percentage: 33 },
            ],
          },
        },
      },
    });
    expect(flag.statusCode, flag.body).toBe(201);
    await phone.goto(`${base}/experiments`);
    await phone.getByRole('button', { name: 'New experiment' }).click();
    await phone.getByLabel('Name').fill('Pricing');
    await phone.getByRole('radio', { name: 'Existing flag' }).check();
    await phone.getByRole('combobox', { name: /^Flag/ }).selectOption('pricing-page');
    await phone.getByLabel('Metric type').selectOption('mean');
    await phone.getByLabel('Event', { exact: true }).fill('purchase');
    await phone.getByRole('button', { name: 'Save draft' }).click();
    await phone.getByRole('heading', { name: 'Pricing' }).waitFor();
    await phone.getByText('control 34%, cheap 33%, dear 33%').waitFor();
    await phone.getByText(/users per variant/).waitFor();
    await phone.screenshot({ path: '/tmp/experiments-existing-390-dark.png', fullPage: true });
    const pricing = (await h.request('GET', `/api/projects/${project}/experiments/`)).json().results[0];
    expect(pricing).toMatchObject({ name: 'Pricing', feature_flag_key: 'pricing-page' });
    expect(pricing.metrics[0]).toMatchObject({ metric_type: 'mean', source: { event: 'purchase' } });
    await narrow.close();
  }, 120_000);
});
