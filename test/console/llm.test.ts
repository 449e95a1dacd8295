import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPasswordByEmail } from '../../src/domain/accounts/password-change.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`console-llm: skipped, no Chromium at ${CHROMIUM}`);

const SHOTS = process.env.LLM_SHOTS;

/** The console's LLM traces page and a trace's tree, with untrusted inputs shown as text. */
describe.skipIf(!hasChromium)(`console LLM traces (${backend})`, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  const email = 'llm-owner@example.com';
  const password = 'correct horse battery';

  beforeAll(async () => {
    h = await startHarness({ BURROW_ADMIN_EMAIL: email, INGEST_BATCH_DELAY_MS: '2' });
    await setPasswordByEmail(h.deps, email, password);
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
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
    ];
    const res = await h.request('POST', '/batch/', { body: { api_key: h.boot.project_api_key, batch } });
    expect(res.statusCode).toBe(200);
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
      await page.getByRole('heading', { name: 'LLM traces' }).waitFor();
      const link = page.getByRole('link', { name: 'support chat' });
      await link.waitFor();
      expect(await page.getByRole('row').count()).toBe(6);
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
  });
});
