import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';
import { capture, uuid } from '../helpers/query-lists.js';

if (!hasChromium) console.warn(`console-surveys: skipped, no Chromium at ${CHROMIUM}`);

/** The console's Surveys page: create one through the form, launch it, read its results. */
describe.skipIf(!hasChromium)(`console surveys (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    c = await startConsoleBrowser('surveys');
    ({ h, base, browser } = c);
  });
  afterAll(async () => c?.close());

  const logIn = (page: Page) => c.logIn(page);

  it('creates a survey in the form, launches it, shows counts, NPS and open answers', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await logIn(page);
    await page.goto(`${base}/surveys`);
    await page.getByRole('heading', { name: 'Surveys' }).waitFor();
    await page.getByRole('button', { name: 'New survey' }).click();
    await page.getByLabel('Name').fill('Checkout feedback');
    await page.getByLabel('URL contains').fill('/checkout');
    await page.getByLabel('Question 1 type').selectOption('rating');
    await page.getByLabel('Question 1 text').fill('How likely are you to recommend us?');
    await page.getByLabel('Question 1 scale').selectOption('10');
    await page.getByRole('button', { name: 'Add question' }).click();
    await page.getByLabel('Question 2 type').selectOption('single_choice');
    await page.getByLabel('Question 2 text').fill('Which plan?');
    await page.getByLabel('Question 2 choices (comma-separated)').fill('Free, Pro');
    await page.getByRole('button', { name: 'Add question' }).click();
    await page.getByLabel('Question 3 text').fill('Anything else?');
    // Keyboard only for the last bit: the preview shows the choices typed.
    await page.getByRole('complementary', { name: 'Preview' }).getByText('○ Pro').waitFor();
    await page.getByRole('button', { name: 'Save draft' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('link', { name: 'Checkout feedback' }).waitFor();

    const list = (await h.request('GET', `/api/projects/${h.boot.project_id}/surveys/`)).json();
    const survey = list.results[0];
    expect(survey.questions.map((q: { type: string }) => q.type)).toEqual([
      'rating',
      'single_choice',
      'open',
    ]);
    expect(survey.questions[0].scale).toBe(10);
    expect(survey.conditions.url).toBe('/checkout');
    expect(survey.start_date).toBeNull();

    await page.getByRole('link', { name: 'Checkout feedback' }).click();
    await page.getByRole('heading', { name: 'Checkout feedback' }).waitFor();
    await page.getByRole('button', { name: 'Launch' }).click();
    await page.getByText('Running').waitFor();
    expect(
      (await h.request('GET', `/api/projects/${h.boot.project_id}/surveys/${survey.id}/`)).json().start_date,
    ).not.toBeNull();

    const [rating, plan, open] = survey.questions.map((q: { id: string }) => `$survey_response_${q.id}`);
    const answer = (who: string, r: number, p: string, o: string) => ({
      event: 'survey sent',
      distinct_id: who,
      properties: { $survey_id: survey.id, [rating]: r, [plan]: p, [open]: o },
    });
    const res = await h.request('POST', '/batch/', {
      body: {
        api_key: h.boot.project_api_key,
        batch: [
          answer('a', 10, 'Pro', 'Love it'),
          answer('b', 9, 'Pro', '<b>bold</b>'),
          answer('c', 3, 'Free', 'Too slow'),
          { event: 'survey shown', distinct_id: 'a', properties: { $survey_id: survey.id } },
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    const end = Date.now() + 20_000;
    while (Date.now() < end) {
      await page.getByRole('button', { name: 'Refresh results' }).click();
      if (await page.getByRole('heading', { name: 'Responses: 3' }).count()) break;
      await page.waitForTimeout(400);
    }
    await page.getByRole('heading', { name: 'Responses: 3' }).waitFor();
    // NPS: two promoters, one detractor of three: 33.
    await page.getByText('NPS: 33').waitFor();
    const choices = page.getByRole('table', { name: 'Answers per choice' });
    expect(await choices.getByRole('row', { name: /Pro/ }).textContent()).toContain('2');
    expect(await choices.getByRole('row', { name: /Free/ }).textContent()).toContain('1');
    await page.getByText('Too slow').waitFor();
    await page.getByText('<b>bold</b>').waitFor();
    await page.screenshot({ path: '/tmp/surveys-390-dark.png', fullPage: true });

    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText('Stopped').waitFor();
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('Archived').waitFor();
    await context.close();
  }, 90_000);

  it('lists early access features with stage, flag and how many people enrolled', async () => {
    await h.request('POST', `/api/projects/${h.boot.project_id}/early_access_feature/`, {
      body: { name: 'Dark Mode', stage: 'beta', description: 'Easier on the eyes' },
    });
    // Two people opt in as posthog-js records it (a person property per feature flag), one opts out.
    const now = new Date().toISOString();
    await capture(h, h.boot.project_api_key, h.boot.project_id, [
      {
        event: '$feature_enrollment_update',
        distinct_id: 'ea-1',
        uuid: uuid(),
        timestamp: now,
        properties: { $set: { '$feature_enrollment/dark-mode': true, email: 'ea1@example.com' } },
      },
      {
        event: '$feature_enrollment_update',
        distinct_id: 'ea-2',
        uuid: uuid(),
        timestamp: now,
        properties: { $set: { '$feature_enrollment/dark-mode': true, email: 'ea2@example.com' } },
      },
      {
        event: '$feature_enrollment_update',
        distinct_id: 'ea-3',
        uuid: uuid(),
        timestamp: now,
        properties: { $set: { '$feature_enrollment/dark-mode': false } },
      },
    ]);
    const page = await (await browser.newContext()).newPage();
    await logIn(page);
    await page.goto(`${base}/early_access_features`);
    await page.getByRole('heading', { name: 'Early access' }).waitFor();
    const row = page.getByRole('row', { name: /Dark Mode/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('beta');
    await row.getByRole('link', { name: 'dark-mode' }).waitFor();
    await row.getByRole('cell', { name: '2', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Show people enrolled in Dark Mode' }).click();
    const people = page.getByRole('region', { name: 'People enrolled in Dark Mode' });
    await people.getByRole('link', { name: 'ea1@example.com' }).waitFor();
    expect(await people.getByRole('link').allTextContents()).toEqual(
      expect.arrayContaining(['ea1@example.com', 'ea2@example.com']),
    );
    expect(await people.getByRole('link').count()).toBe(2);
  }, 60_000);
});
