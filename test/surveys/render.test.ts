import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** posthog-js from Burrow (array.js loads surveys.js from Burrow too), identified with `props`. */
const page = (token: string, apiHost: string, id: string, props: Record<string, unknown>) => `<!doctype html>
<html><head><script src="${apiHost}/static/array.js"></script><script>
posthog.init(${JSON.stringify(token)}, {
  api_host: ${JSON.stringify(apiHost)},
  defaults: '2025-05-24',
  opt_out_useragent_filter: true,
  bootstrap: { distinctID: ${JSON.stringify(id)}, isIdentifiedID: true },
  person_profiles: 'always',
});
posthog.identify(${JSON.stringify(id)}, ${JSON.stringify(props)});
</script></head><body><h1>Shop</h1></body></html>`;

type Summary = {
  responses: number;
  questions: Array<{
    id: string;
    answers?: string[];
    counts?: Record<string, number>;
    distribution?: Record<string, number>;
    nps?: number | null;
  }>;
};

describe.skipIf(!hasChromium)(`posthog-js draws Burrow's surveys and answers them (${backend})`, () => {
  let h: Harness;
  let api: string;
  let site: Server;
  let origin: string;
  const create = async (body: Record<string, unknown>) => {
    const r = await h.request('POST', `/api/projects/${h.boot.project_id}/surveys/`, {
      body: { type: 'popover', start_date: new Date(Date.now() - 60_000).toISOString(), ...body },
    });
    expect(r.statusCode).toBe(201);
    return r.json() as { id: string; questions: Array<{ id: string }> };
  };
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    site = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const id = url.searchParams.get('id') ?? 'anon';
      const props = JSON.parse(url.searchParams.get('props') ?? '{}');
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page(h.boot.project_api_key, api, id, props));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await h?.close();
  });

  const summaryOf = async (id: string, responses: number) => {
    const end = Date.now() + 20_000;
    let s: Summary = { responses: 0, questions: [] };
    while (Date.now() < end && s.responses < responses) {
      await new Promise((r) => setTimeout(r, 300));
      s = (await h.request('GET', `/api/projects/${h.boot.project_id}/surveys/${id}/summary/`)).json();
    }
    return s;
  };
  /** The survey's shadow root appears (or not) within `ms`. */
  const shown = (tab: Page, id: string, ms: number) =>
    tab
      .waitForSelector(`.PostHogSurvey-${id}`, { state: 'attached', timeout: ms })
      .then(() => true)
      .catch(() => false);

  it('shows a survey on its URL to a person with the property, the answer reaches stats and summary', async () => {
    const survey = await create({
      name: 'Pricing rating',
      questions: [
        { type: 'rating', question: 'How likely are you to recommend us?', scale: 10, display: 'number' },
      ],
      conditions: { url: '/pricing', urlMatchType: 'icontains' },
      targeting_flag_filters: {
        groups: [
          {
            properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }],
            rollout_percentage: 100,
          },
        ],
      },
    });
    const browser = await launchChromium();
    try {
      const visit = async (path: string, id: string, props: Record<string, unknown>) => {
        const tab = await (await browser.newContext()).newPage();
        await tab.goto(`${origin}${path}?id=${id}&props=${encodeURIComponent(JSON.stringify(props))}`);
        return tab;
      };
      // Another URL, same person: nothing drawn.
      const other = await visit('/about', 'pro-user', { plan: 'pro' });
      expect(await shown(other, survey.id, 4000)).toBe(false);
      // Right URL, a person without the property: nothing drawn.
      const free = await visit('/pricing', 'free-user', { plan: 'free' });
      expect(await shown(free, survey.id, 4000)).toBe(false);

      const tab = await visit('/pricing', 'pro-user', { plan: 'pro' });
      expect(await shown(tab, survey.id, 15_000)).toBe(true);
      const root = tab.locator(`.PostHogSurvey-${survey.id}`);
      await root.locator('.ratings-number', { hasText: /^9$/ }).click();
      // A rating question without a submit button auto-submits on click; otherwise press it.
      const submit = root.locator('.form-submit');
      if (await submit.count()) await submit.first().click();

      const s = await summaryOf(survey.id, 1);
      expect(s.responses).toBe(1);
      expect(s.questions[0]?.distribution).toEqual({ '9': 1 });
      expect(s.questions[0]?.nps).toBe(100);
      const stats = (
        await h.request('GET', `/api/projects/${h.boot.project_id}/surveys/${survey.id}/stats/`)
      ).json();
      expect(stats.stats['survey sent'].total_count).toBe(1);
      expect(stats.stats['survey shown'].total_count).toBeGreaterThanOrEqual(1);
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('follows branching answered in the browser', async () => {
    const survey = await create({
      name: 'Branching',
      questions: [
        {
          type: 'single_choice',
          question: 'Which plan?',
          choices: ['Free', 'Paid'],
          branching: { type: 'response_based', responseValues: { 0: 2, 1: 1 } },
        },
        { type: 'open', question: 'Why paid?', branching: { type: 'end' } },
        {
          type: 'open',
          question: 'Why free?',
          branching: { type: 'specific_question', index: 4 },
        },
        { type: 'open', question: 'Never asked' },
        { type: 'open', question: 'Last words?' },
      ],
      conditions: { url: '/branch', urlMatchType: 'icontains' },
    });
    const browser = await launchChromium();
    try {
      const tab = await (await browser.newContext()).newPage();
      await tab.goto(`${origin}/branch?id=brancher&props={}`);
      expect(await shown(tab, survey.id, 15_000)).toBe(true);
      const root = tab.locator(`.PostHogSurvey-${survey.id}`);
      const texts: string[] = [];
      const title = async () => (await root.locator('.survey-question').first().textContent())?.trim() ?? '';
      await root.getByText('Free', { exact: true }).click();
      await root.locator('.form-submit').click();
      texts.push(await title());
      await root.locator('textarea').fill('It is enough');
      await root.locator('.form-submit').click();
      texts.push(await title());
      await root.locator('textarea').fill('Bye');
      await root.locator('.form-submit').click();
      expect(texts[0]).toContain('Why free?');
      expect(texts[1]).toContain('Last words?');
      const s = await summaryOf(survey.id, 1);
      expect(s.questions[0]?.counts).toEqual({ Free: 1 });
      const answers = s.questions.map((q) => q.answers);
      expect(answers[1]).toEqual([]);
      expect(answers[2]).toEqual(['It is enough']);
      expect(answers[3]).toEqual([]);
      expect(answers[4]).toEqual(['Bye']);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
