import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDuePlaylists } from '../../src/domain/recordings/playlist-counter.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`recordings-browser: skipped, no Chromium at ${CHROMIUM}`);
const require = createRequire(import.meta.url);

/**
 * Real recordings: the unmodified posthog-js bundle records two visits in headless Chromium, and
 * playlists count and list exactly the visit each filter describes.
 */
describe.skipIf(!hasChromium)(`playlists over posthog-js recordings (${backend})`, () => {
  let h: Harness;
  let site: Server;
  let page: string;
  let api: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2', PLAYLIST_COUNT_INTERVAL_MS: '0' });
    await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: { session_recording_opt_in: true },
    });
    api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const bundle = readFileSync(require.resolve('posthog-js/dist/array.full.js'));
    const html = `<!doctype html><html><body><h1>Shop</h1><button id="buy">Buy</button><input id="q">
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(h.boot.project_api_key)}, {
    api_host: ${JSON.stringify(api)},
    autocapture: true,
    session_recording: { maskAllInputs: false },
    opt_out_useragent_filter: true,
  });
</script></body></html>`;
    site = createServer((req, res) => {
      const js = req.url === '/posthog.js';
      res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html' });
      res.end(js ? bundle : html);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    page = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await h?.close();
  });

  type PostHogWindow = {
    posthog: {
      __loaded?: boolean;
      capture(e: string): void;
      identify(id: string, p: object): void;
      get_session_id(): string;
    };
  };

  async function visit(browser: import('playwright-core').Browser, buyer: boolean): Promise<string> {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(page);
    await tab.waitForFunction(() => (globalThis as unknown as PostHogWindow).posthog?.__loaded === true);
    await tab.waitForTimeout(1500); // the recorder starts once remote config arrived
    if (buyer) {
      await tab.evaluate(() =>
        (globalThis as unknown as PostHogWindow).posthog.identify('buyer', { email: 'buyer@shop.test' }),
      );
      for (let i = 0; i < 3; i++) {
        await tab.click('#buy');
        await tab.fill('#q', `shoes ${i}`);
        await tab.waitForTimeout(300);
      }
      await tab.evaluate(() => {
        console.error('payment failed');
        (globalThis as unknown as PostHogWindow).posthog.capture('checkout');
      });
    }
    await tab.waitForTimeout(500);
    const sessionId = await tab.evaluate(() =>
      (globalThis as unknown as PostHogWindow).posthog.get_session_id(),
    );
    await tab.goto('about:blank'); // leaving flushes the recorder
    await context.close();
    return sessionId;
  }

  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
    const end = Date.now() + 20_000;
    for (;;) {
      const v = await read();
      if (ok(v) || Date.now() > end) return v;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('counts and lists the recordings each playlist describes', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    let buyer: string;
    let browsing: string;
    try {
      buyer = await visit(browser, true);
      browsing = await visit(browser, false);
    } finally {
      await browser.close();
    }
    expect(buyer).not.toBe(browsing);
    const recordings = `/api/environments/${h.boot.project_id}/session_recordings/`;
    const listed = await until(
      async () => (await h.request('GET', recordings)).json().results as Array<Record<string, unknown>>,
      (rows) =>
        rows.length === 2 &&
        rows.some((r) => (r.click_count as number) >= 3 && (r.console_error_count as number) >= 1),
    );
    const byId = Object.fromEntries(listed.map((r) => [r.id, r]));
    expect(byId[buyer]).toMatchObject({
      start_url: page,
      person: { properties: { email: 'buyer@shop.test' } },
    });
    expect(byId[buyer]?.click_count).toBeGreaterThanOrEqual(3);
    expect(byId[browsing]).toMatchObject({ click_count: 0, console_error_count: 0 });

    const playlists = `/api/environments/${h.boot.project_id}/session_recording_playlists/`;
    const make = async (filters: object) =>
      (await h.request('POST', playlists, { body: { type: 'filters', filters } })).json().short_id;
    const expectations: Array<[string, string[]]> = [
      [await make({ events: [{ id: 'checkout', type: 'events' }] }), [buyer]],
      [await make({ console_logs: ['error'] }), [buyer]],
      [await make({ events: [{ id: '$autocapture', type: 'events' }] }), [buyer]],
      [
        await make({
          properties: [{ type: 'person', key: 'email', value: 'shop.test', operator: 'icontains' }],
        }),
        [buyer],
      ],
      [await make({ events: [{ id: '$pageview', type: 'events' }] }), [buyer, browsing]],
    ];
    await countDuePlaylists(h.deps, { maxAgeMs: 3_600_000, batch: 50 });
    for (const [shortId, expected] of expectations) {
      const got = (await h.request('GET', `${playlists}${shortId}/`)).json();
      expect(got.recordings_counts.saved_filters.count).toBe(expected.length);
      const contents = (await h.request('GET', `${playlists}${shortId}/recordings/`)).json();
      expect(contents.results.map((r: { id: string }) => r.id).sort()).toEqual([...expected].sort());
    }

    const collection = (
      await h.request('POST', playlists, { body: { type: 'collection', name: 'to watch' } })
    ).json().short_id;
    await h.request('POST', `${playlists}${collection}/recordings/${browsing}/`);
    const pinned = (await h.request('GET', `${playlists}${collection}/`)).json();
    expect(pinned.recordings_counts.collection).toEqual({ count: 1, watched_count: 0 });
    const contents = (await h.request('GET', `${playlists}${collection}/recordings/`)).json();
    expect(contents.results.map((r: { id: string }) => r.id)).toEqual([browsing]);

    const { sources } = (await h.request('GET', `${recordings}${buyer}/snapshots/`)).json();
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.every((s: { source: string }) => s.source === 'blob_v2')).toBe(true);
    const blob = await h.request(
      'GET',
      `${recordings}${buyer}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=${sources.length - 1}`,
    );
    expect(blob.headers['content-type']).toBe('application/jsonl');
    const events = blob.body.split('\n').map((line) => JSON.parse(line)[1] as { type: number });
    // A full DOM snapshot (posthog-js compresses it; served as stored) and the typed text.
    expect(events.some((e) => e.type === 2)).toBe(true);
    expect(events.some((e) => JSON.stringify(e).includes('"text":"shoes 2"'))).toBe(true);
  }, 90_000);
});
