import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { destinationSink } from '../helpers/http-sink.js';

type Sink = Awaited<ReturnType<typeof destinationSink>>;

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const TUNING = { DESTINATIONS_POLL_MS: '50', DESTINATIONS_RETRY_BASE_MS: '50' };

async function setWebhook(h: Harness, url: string | null) {
  const res = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
    body: { slack_incoming_webhook: url },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function slackAction(h: Harness, event: string, format: string) {
  const res = await h.request('POST', `/api/projects/${h.boot.project_id}/actions/`, {
    body: {
      name: `Slack ${event}`,
      steps: [{ event }],
      post_to_slack: true,
      slack_message_format: format,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as number;
}

async function capture(
  h: Harness,
  events: Array<{ event: string; distinct_id: string; properties?: object }>,
) {
  const res = await h.request('POST', '/batch/', {
    key: null,
    body: {
      api_key: h.boot.project_api_key,
      batch: events.map((e) => ({ uuid: randomUUID(), properties: {}, ...e })),
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/**
 * Actions' `post_to_slack`: an event matching the action posts its `slack_message_format`,
 * rendered as PostHog renders it, to the project's `slack_incoming_webhook` (a loopback sink here),
 * through the delivery queue and the network guard.
 */
describe(`actions post to the Slack webhook (${backend})`, () => {
  let h: Harness;
  const sinks: Sink[] = [];
  beforeAll(async () => {
    h = await startHarness({ ...TUNING, BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(async () => {
    for (const s of sinks) await s.close();
    await h?.close();
  });
  const sink = async (answer?: Parameters<typeof destinationSink>[0]) => {
    const s = await destinationSink(answer);
    sinks.push(s);
    return s;
  };

  it('stores the webhook as PostHog shows it (in the clear, null by default)', async () => {
    const before = (await h.request('GET', `/api/projects/${h.boot.project_id}/`)).json();
    expect(before.slack_incoming_webhook).toBeNull();
    const url = 'https://hooks.slack.com/services/T000/B000/XXXX';
    expect((await setWebhook(h, url)).slack_incoming_webhook).toBe(url);
    const after = (await h.request('GET', `/api/projects/${h.boot.project_id}/`)).json();
    expect(after.slack_incoming_webhook).toBe(url);
    const bad = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: { slack_incoming_webhook: 12 },
    });
    expect(bad.statusCode).toBe(400);
    await setWebhook(h, null);
  });

  it('posts the rendered message once per matching event; nothing without a webhook', async () => {
    const s = await sink((n) => ({ status: n === 1 ? 503 : 200 }));
    await slackAction(
      h,
      'as-upgraded',
      'Plan [event.properties.plan] for [event.distinct_id] via [event.event] \\[ok\\]',
    );
    const linked = await slackAction(h, 'as-default', '');
    // No webhook yet: matching events send nothing.
    await capture(h, [{ event: 'as-upgraded', distinct_id: 'before_hook', properties: { plan: 'free' } }]);
    await sleep(1500);
    expect(s.received).toHaveLength(0);

    await setWebhook(h, `${s.url}/slack`);
    await capture(h, [
      { event: 'as-upgraded', distinct_id: 'sl_1', properties: { plan: 'scale' } },
      { event: 'as-other', distinct_id: 'sl_1' },
    ]);
    // The first try answers 503: the message is tried again, and arrives once in all.
    await waitUntil('the message after a retry', () => s.received.length >= 2);
    await sleep(800);
    expect(s.received).toHaveLength(2);
    expect(s.received[1]!.url).toBe('/slack');
    // Not a slack.com address: PostHog's Markdown form, `{text}` only, special characters escaped.
    expect(JSON.parse(s.received[1]!.body)).toEqual({ text: 'Plan scale for sl\\_1 via as-upgraded [ok]' });

    // The default message: the action and the person, linked.
    await capture(h, [
      { event: 'as-default', distinct_id: 'sl-2', properties: { $set: { email: 'ada@example.com' } } },
    ]);
    await waitUntil('the default message', () => s.received.length >= 3);
    const text = JSON.parse(s.received[2]!.body).text as string;
    expect(text).toMatch(
      new RegExp(
        `^\\[Slack as-default\\]\\(.*/project/${h.boot.project_id}/action/${linked}\\) was triggered by \\[ada@example.com\\]\\(.*/project/${h.boot.project_id}/person/sl-2\\)$`,
      ),
    );
    await setWebhook(h, null);
    await capture(h, [{ event: 'as-default', distinct_id: 'sl-3' }]);
    await sleep(1200);
    expect(s.received).toHaveLength(3);
  });
});

describe(`actions' Slack messages and the network guard (${backend})`, () => {
  let h: Harness;
  let s: Sink;
  beforeAll(async () => {
    h = await startHarness(TUNING);
    s = await destinationSink();
  });
  afterAll(async () => {
    await s?.close();
    await h?.close();
  });

  it('does not post to a private address unless private networks are allowed', async () => {
    await setWebhook(h, `${s.url}/slack`);
    await slackAction(h, 'ag-blocked', '[event]');
    await capture(h, [{ event: 'ag-blocked', distinct_id: 'g1' }]);
    await sleep(2500);
    expect(s.received).toHaveLength(0);
  });
});
