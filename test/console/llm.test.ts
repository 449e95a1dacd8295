import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-llm: skipped, no Chromium at ${CHROMIUM}`);

const SHOTS = process.env.LLM_SHOTS;

/** The console's LLM traces page and a trace's tree, with untrusted inputs shown as text. */
describe.skipIf(!hasChromium)(`console LLM traces (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    c = await startConsoleBrowser('llm');
    ({ h, base, browser } = c);
    const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000).toISOString();
    const batch = [
      {
        event: '$ai_trace',
        distinct_id: 'ada',
        timestamp: at(0),
        properties: { $ai_trace_id: 'trace-1', $ai_span_name: 'support chat', $ai_latency: 2.5 },
      },
      {
        event: '$ai_span',
        distinct_id: 'ada',
        timestamp: at(1),
        properties: {
          $ai_trace_id: 'trace-1',
          $ai_span_id: 'span-1',
          $ai_parent_id: 'trace-1',
          $ai_span_name: 'retrieve docs',
        },
      },
      {
        event: '$ai_generation',
        distinct_id: 'ada',
        timestamp: at(2),
        properties: {
          $ai_trace_id: 'trace-1',
          $ai_span_id: 'gen-1',
          $ai_parent_id: 'span-1',
          $ai_model: 'gpt-4o-mini',
          $ai_provider: 'openai',
          $ai_input_tokens: 1200,
          $ai_output_tokens: 300,
          $ai_latency: 1.25,
          $ai_input: [{ role: 'user', content: '<img src=x onerror="window.pwned=1">Where is my order?' }],
          $ai_output_choices: [{ role: 'assistant', content: 'It ships **tomorrow**.' }],
        },
      },
      ...Array.from({ length: 4 }, (_, i) => ({
        event: '$ai_generation',
        distinct_id: `user-${i}`,
        timestamp: at(10 + i),
        properties: {
          $ai_trace_id: `trace-x${i}`,
          $ai_model: 'claude-3-5-haiku',
          $ai_input_tokens: 50,
          $ai_output_tokens: 20,
          $ai_latency: 0.4,
        },
      })),
      {
        event: '$ai_generation',
        distinct_id: 'ada',
        timestamp: at(20),
        properties: {
          $ai_trace_id: 'trace-house',
          $ai_model: 'house-llm',
          $ai_provider: 'acme',
          $ai_input_tokens: 1000,
          $ai_output_tokens: 1000,
          $ai_latency: 3,
          $ai_is_error: true,
        },
      },
    ];
    const res = await h.request('POST', '/batch/', { body: { api_key: h.boot.project_api_key, batch } });
    expect(res.statusCode).toBe(200);
  });
  afterAll(async () => c?.close());

  const logIn = (page: Page) => c.logIn(page);

  it('lists traces and shows one as a tree with its input and output as text', async () => {
    for (const [width, scheme] of [
      [1280, 'light'],
      [390, 'dark'],
      [1280, 'dark'],
      [390, 'light'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await logIn(page);
      await page.goto(`${base}/llm`);
      await page.getByRole('heading', { name: 'LLM analytics' }).waitFor();
      const link = page.getByRole('link', { name: 'support chat' });
      await link.waitFor();
      expect(await page.getByRole('region', { name: 'Traces' }).getByRole('row').count()).toBe(7);
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/traces-${width}-${scheme}.png`, fullPage: true });
      await link.click();
      await page.getByRole('heading', { name: 'support chat', exact: true }).waitFor();
      // The tree: the generation sits under the span it names as parent.
      const span = page.locator('li', { has: page.getByRole('button', { name: 'span · retrieve docs' }) });
      await span.getByRole('button', { name: 'generation · gpt-4o-mini' }).click();
      await page.getByText('Where is my order?').waitFor();
      // Untrusted input is text: the markup shows as written and nothing of it runs.
      await expect(page.getByText('<img src=x onerror="window.pwned=1">Where is my order?')).toBeTruthy();
      expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      await page.getByText('It ships **tomorrow**.').waitFor();
      // Keyboard: the tree's buttons are reachable and work with Enter.
      await page.getByRole('button', { name: 'span · retrieve docs' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'span · retrieve docs' }).waitFor();
      if (SHOTS) {
        await span.getByRole('button', { name: 'generation · gpt-4o-mini' }).click();
        await page.screenshot({ path: `${SHOTS}/trace-${width}-${scheme}.png`, fullPage: true });
      }
      await context.close();
    }
    // Four viewports, each loading the dashboard's queries.
  }, 120_000);

  it("draws the dashboard's aggregates by model, lists uncosted models and prices one", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 }, colorScheme: 'dark' });
    const page = await context.newPage();
    await logIn(page);
    await page.goto(`${base}/llm`);
    // Cost by model: gpt-4o-mini's 1200 × 0.15/M + 300 × 0.60/M = $0.00036; house-llm has none.
    const cost = page.getByRole('region', { name: 'Cost by model (USD)' });
    await cost.locator('canvas, svg').first().waitFor();
    await cost.getByRole('row', { name: /Cost · gpt-4o-mini \$0\.00036/ }).waitFor();
    const tokens = page.getByRole('region', { name: 'Tokens by model' });
    await tokens.getByRole('row', { name: /Input · claude-3-5-haiku 200/ }).waitFor();
    await tokens.getByRole('row', { name: /Output · gpt-4o-mini 300/ }).waitFor();
    const latency = page.getByRole('region', { name: 'Latency by model (seconds)' });
    await latency.getByRole('row', { name: /p95 · house-llm 3\.00 s/ }).waitFor();
    const errors = page.getByRole('region', { name: 'Generations and errors by model' });
    await errors.getByRole('row', { name: /Generations · claude-3-5-haiku 4/ }).waitFor();
    await errors.getByRole('row', { name: /Errors · house-llm 1/ }).waitFor();
    expect(await errors.getByRole('row', { name: /Errors · gpt-4o-mini/ }).count()).toBe(0);

    // The uncosted model is listed; its price is set from the page, with the keyboard.
    const uncosted = page.getByRole('region', { name: 'Uncosted models' });
    const row = uncosted.getByRole('row', { name: /house-llm acme 1/ });
    await row.waitFor();
    expect(await uncosted.getByRole('row', { name: /gpt-4o-mini/ }).count()).toBe(0);
    await row.getByRole('button', { name: 'Set a price' }).focus();
    await page.keyboard.press('Enter');
    expect(await uncosted.getByRole('textbox', { name: 'Model', exact: true }).inputValue()).toBe(
      'house-llm',
    );
    await uncosted.getByLabel('Input, USD per million tokens').fill('2');
    await uncosted.getByLabel('Output, USD per million tokens').fill('6');
    await uncosted.getByLabel('Output, USD per million tokens').press('Enter');
    await uncosted.getByRole('status').getByText('Saved: new events of house-llm').waitFor();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/dashboard-390-dark.png`, fullPage: true });
    await context.close();

    const project = (await h.request('GET', `/api/projects/${h.boot.project_id}/`)).json();
    expect(project.llm_custom_model_prices).toEqual([
      { model: 'house-llm', prompt_token: 0.000002, completion_token: 0.000006 },
    ]);
    // The next event of that model is priced with it.
    const res = await h.request('POST', '/batch/', {
      body: {
        api_key: h.boot.project_api_key,
        batch: [
          {
            event: '$ai_generation',
            distinct_id: 'ada',
            properties: {
              $ai_trace_id: 'trace-house-2',
              $ai_model: 'house-llm',
              $ai_input_tokens: 1_000_000,
            },
          },
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    const trace = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'TraceQuery', traceId: 'trace-house-2' } },
    });
    expect(trace.json().results[0].totalCost).toBeCloseTo(2, 10);
  }, 60_000);
});
