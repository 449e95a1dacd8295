import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromium } from '../helpers/chromium.js';
import { type ConsoleBrowser, startConsoleBrowser } from '../helpers/console-browser.js';
import { backend, type Harness } from '../helpers/harness.js';
import { destinationSink } from '../helpers/http-sink.js';
import { capture, uuid } from '../helpers/query-lists.js';

if (!hasChromium) console.warn(`console-destinations: skipped, no Chromium at ${CHROMIUM}`);

/** The contrast test's in-page measurement: every text at WCAG AA (4.5:1) or more. */
const PROBE = readFileSync(new URL('./contrast-probe.js', import.meta.url), 'utf8').replace(
  'export function',
  'function',
);
const lowContrast = (page: Page) => page.evaluate(`${PROBE}\nlowContrast(4.5)`);

async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The console's Destinations page against a real HTTP sink on loopback: a webhook destination made
 * from the template through the form, its preview rendered on the project's latest matching event,
 * tested (the sink receives the test), saved, enabled; an event captured afterwards reaches the sink
 * and shows in the destination's logs and delivery counts.
 */
describe.skipIf(!hasChromium)(`console destinations (${backend})`, () => {
  let c: ConsoleBrowser;
  let h: Harness;
  let base: string;
  let browser: Browser;
  let sink: Awaited<ReturnType<typeof destinationSink>>;

  beforeAll(async () => {
    // The sink is on loopback: the network guard allows private addresses only when told to.
    c = await startConsoleBrowser('destinations', {
      BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
      DESTINATIONS_POLL_MS: '50',
    });
    ({ h, base, browser } = c);
    sink = await destinationSink();
  });
  afterAll(async () => {
    await sink?.close();
    await c?.close();
  });

  it('creates a webhook destination with a live preview, tests, enables it and sees deliveries', async () => {
    const project = h.boot.project_id;
    const token = h.boot.project_api_key;
    await capture(h, token, project, [
      {
        event: 'signed_up',
        distinct_id: 'ada',
        uuid: uuid(),
        timestamp: new Date(Date.now() - 60_000).toISOString(),
        properties: { plan: 'scale', $set: { email: 'ada@example.com' } },
      },
      // Later, but not an event the destination runs on: the preview must not pick it.
      { event: 'other_event', distinct_id: 'bob', uuid: uuid(), properties: { plan: 'free' } },
    ]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await c.logIn(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Destinations' }).click();
    await page.getByRole('heading', { name: 'Destinations', level: 1 }).waitFor();
    await page.getByText('No destinations yet.').waitFor();
    await page.getByRole('link', { name: 'New destination' }).click();
    await page.getByRole('heading', { name: 'Pick a template' }).waitFor();
    await page.getByRole('button', { name: 'Use HTTP Webhook' }).click();
    await page.getByRole('heading', { name: 'New HTTP Webhook destination' }).waitFor();

    // The form is the template's inputs_schema: a text field, a choice, JSON and a dictionary.
    await page.getByLabel('Name', { exact: true }).fill('Signups to the CRM');
    await page.getByLabel('Webhook URL (required)').fill(`${sink.url}/hook`);
    expect(await page.getByLabel('Method').inputValue()).toBe('POST');
    await page.getByLabel('Headers 1 name').waitFor();
    expect(await page.getByLabel('Headers 1 value').inputValue()).toBe('application/json');
    await page.getByRole('button', { name: 'Add headers' }).click();
    await page.getByLabel('Headers 2 name').fill('X-Event');
    await page.getByLabel('Headers 2 value').fill('{event.event}');
    const body = page.getByLabel('JSON Body');
    // JSON that does not parse is named at its field, and nothing can be saved.
    await body.fill('{"who": ');
    await page.getByText(/^Not valid JSON/).waitFor();
    expect(await page.getByRole('button', { name: 'Create destination' }).isDisabled()).toBe(true);
    await body.fill(
      JSON.stringify({
        who: '{person.properties.email}',
        event: '{event.event}',
        plan: '{event.properties.plan}',
      }),
    );
    // Filters: only signed_up, added from the keyboard (Enter in the field).
    await page.getByLabel('Event name').fill('signed_up');
    await page.getByLabel('Event name').press('Enter');
    await page.getByRole('button', { name: 'Remove event signed_up' }).waitFor();

    // The preview: the server's rendering on the latest signed_up event, not the later other_event.
    const preview = page.getByRole('region', { name: 'Request preview' });
    await page.getByText(/On the latest matching event: signed_up from ada/).waitFor();
    await expect
      .poll(async () => (await preview.count()) && (await preview.textContent()), { timeout: 15_000 })
      .toContain('"who": "ada@example.com"');
    const shown = (await preview.textContent()) ?? '';
    expect(shown).toContain(`POST ${sink.url}/hook`);
    expect(shown).toContain('"plan": "scale"');
    expect(shown).toContain('X-Event');
    // The preview follows the form as it changes (debounced).
    await page.getByLabel('Method').selectOption('PUT');
    await expect
      .poll(async () => preview.textContent(), { timeout: 10_000 })
      .toContain(`PUT ${sink.url}/hook`);
    await page.getByLabel('Method').selectOption('POST');
    expect(sink.received).toHaveLength(0);
    await page.screenshot({ path: '/tmp/destinations-form.png', fullPage: true });

    // Test sends it for real, once.
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByText('Test succeeded').waitFor();
    await waitUntil('the test request', () => sink.received.length === 1);
    expect(sink.received[0]).toMatchObject({ method: 'POST', url: '/hook' });
    expect(JSON.parse(sink.received[0]!.body)).toEqual({
      who: 'ada@example.com',
      event: 'signed_up',
      plan: 'scale',
    });

    // Saved disabled; enabled from its page.
    await page.getByRole('button', { name: 'Create destination' }).click();
    await page.getByRole('heading', { name: 'Signups to the CRM', level: 1 }).waitFor();
    await page.getByText('Disabled', { exact: true }).waitFor();
    const saved = (await h.request('GET', `/api/projects/${project}/hog_functions/`)).json().results[0];
    expect(saved).toMatchObject({
      name: 'Signups to the CRM',
      template_id: 'template-webhook',
      enabled: false,
      filters: { events: [{ id: 'signed_up', type: 'events' }] },
    });
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Enabled', { exact: true }).waitFor();
    await page.getByText('No log lines yet', { exact: false }).waitFor();

    // A new signed_up is delivered; other events are not.
    await capture(h, token, project, [
      { event: 'signed_up', distinct_id: 'cy', uuid: uuid(), properties: { plan: 'team' } },
      { event: 'other_event', distinct_id: 'cy', uuid: uuid() },
    ]);
    await waitUntil('the delivery', () => sink.received.length === 2);
    expect(JSON.parse(sink.received[1]!.body)).toMatchObject({ event: 'signed_up', plan: 'team' });
    // The page reads its logs and counts again by itself.
    const logs = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Message' }) });
    await logs.getByRole('row').filter({ hasText: 'INFO' }).first().waitFor({ timeout: 15_000 });
    const delivery = page.getByRole('region', { name: 'Deliveries' });
    await delivery.getByText(/Last 7 days: 1 succeeded, 0 failed/).waitFor({ timeout: 15_000 });
    const today = new Date().toISOString().slice(0, 10);
    expect(await delivery.getByRole('row', { name: new RegExp(today) }).textContent()).toMatch(
      new RegExp(`^${today}10`),
    );
    await page.screenshot({ path: '/tmp/destinations-page.png', fullPage: true });
    expect(await lowContrast(page)).toEqual([]);

    // The list: its template, switch on, and the counts.
    await page.getByRole('link', { name: 'Destinations' }).first().click();
    const row = page.getByRole('row', { name: /Signups to the CRM/ });
    await row.getByText('1 succeeded').waitFor();
    expect(await row.textContent()).toContain('HTTP Webhook');
    const toggle = row.getByRole('switch', { name: 'Enabled: Signups to the CRM' });
    expect(await toggle.isChecked()).toBe(true);
    // Off from the list, with the keyboard.
    await toggle.focus();
    await page.keyboard.press('Space');
    await expect
      .poll(
        async () =>
          (await h.request('GET', `/api/projects/${project}/hog_functions/${saved.id}/`)).json().enabled,
      )
      .toBe(false);
    await context.close();

    // Readable on a phone and in dark mode.
    for (const [width, colorScheme] of [
      [390, 'light'],
      [390, 'dark'],
      [1280, 'dark'],
    ] as const) {
      const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
      const p = await ctx.newPage();
      await c.logIn(p);
      await p.goto(`${base}/destinations/${saved.id}`);
      await p.getByRole('region', { name: 'Request preview' }).waitFor({ timeout: 15_000 });
      await p.getByText(/Last 7 days: 1 succeeded/).waitFor();
      await p.screenshot({ path: `/tmp/destinations-${width}-${colorScheme}.png`, fullPage: true });
      expect(await lowContrast(p)).toEqual([]);
      // Nothing wider than the screen but what scrolls inside its own box (tables, code).
      const overflow = async () => Number(await p.evaluate('document.documentElement.scrollWidth')) - width;
      expect(await overflow()).toBeLessThanOrEqual(0);
      await p.goto(`${base}/destinations`);
      await p.getByText('0 failed').first().waitFor();
      await p.screenshot({ path: `/tmp/destinations-list-${width}-${colorScheme}.png`, fullPage: true });
      expect(await lowContrast(p)).toEqual([]);
      expect(await overflow()).toBeLessThanOrEqual(0);
      await ctx.close();
    }
  }, 180_000);

  it('keeps a secret input write-only: never sent to the page, kept on save, used by Test', async () => {
    const project = h.boot.project_id;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await c.logIn(page);
    await page.goto(`${base}/destinations/new`);
    await page.getByRole('button', { name: 'Use Slack' }).click();
    const secret = page.getByLabel('Incoming webhook URL (required)');
    expect(await secret.getAttribute('type')).toBe('password');
    await secret.fill(`${sink.url}/slack-secret-path`);
    await page.getByLabel('Event name').fill('signed_up');
    await page.getByRole('button', { name: 'Add event' }).click();
    await page.getByRole('button', { name: 'Create destination' }).click();
    await page.getByRole('heading', { name: 'Slack', level: 1 }).waitFor();
    const list = (await h.request('GET', `/api/projects/${project}/hog_functions/`)).json().results;
    const slack = list.find((f: { template_id: string }) => f.template_id === 'template-slack');
    expect(slack.inputs.webhook_url).toEqual({ secret: true });
    // The page has no copy of the value: the field starts empty and says a value is saved.
    await page.getByText(/A value is saved; it is never shown/).waitFor();
    expect(await page.getByLabel('Incoming webhook URL').inputValue()).toBe('');
    const preview = page.getByRole('region', { name: 'Request preview' });
    await expect
      .poll(async () => (await preview.count()) && (await preview.textContent()))
      .toContain('POST ***');
    expect(await page.content()).not.toContain('slack-secret-path');

    // Another input changed and saved: the secret stays, and Test sends to it.
    await page.getByLabel('Plain text message').fill('New signup: {event.event}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    const before = sink.received.length;
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByText('Test succeeded').waitFor();
    await waitUntil('the Slack test', () => sink.received.length === before + 1);
    const got = sink.received.at(-1)!;
    expect(got.url).toBe('/slack-secret-path');
    expect(JSON.parse(got.body).text).toBe('New signup: signed_up');
    expect(await page.content()).not.toContain('slack-secret-path');
    await context.close();
  }, 120_000);

  it('a save from the page keeps what the page does not edit: Liquid templating, property filters', async () => {
    const project = h.boot.project_id;
    const path = `/api/projects/${project}/hog_functions/`;
    const created = await h.request('POST', path, {
      body: {
        template_id: 'template-discord',
        name: 'Liquid one',
        inputs: {
          webhookUrl: { value: `${sink.url}/liquid` },
          content: {
            value: '{{ event.event | upcase }} by {{ person.properties.email }}',
            templating: 'liquid',
          },
        },
        filters: {
          events: [{ id: 'signed_up', type: 'events' }],
          properties: [{ key: 'plan', value: 'scale', operator: 'exact', type: 'event' }],
        },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await c.logIn(page);
    await page.goto(`${base}/destinations/${id}`);
    // The preview renders the Liquid on the latest signed_up with plan scale: ada's.
    const preview = page.getByRole('region', { name: 'Request preview' });
    await expect
      .poll(async () => (await preview.count()) && (await preview.textContent()), { timeout: 15_000 })
      .toContain('SIGNED_UP by ada@example.com');
    await page.getByText("This destination's action and property filters are kept").waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Liquid renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    const saved = (await h.request('GET', `${path}${id}/`)).json();
    expect(saved.name).toBe('Liquid renamed');
    expect(saved.inputs.content).toEqual({
      value: '{{ event.event | upcase }} by {{ person.properties.email }}',
      templating: 'liquid',
    });
    expect(saved.filters.properties).toEqual([
      { key: 'plan', value: 'scale', operator: 'exact', type: 'event' },
    ]);
    await context.close();
  }, 120_000);
});
