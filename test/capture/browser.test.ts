import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  console.warn(
    `capture-browser: skipped, no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );
}
const require = createRequire(import.meta.url);

/** The unmodified posthog-js bundle in a real browser, sending pageviews and a recording. */
describe.skipIf(!hasChromium)(`posthog-js in headless Chromium (${backend})`, () => {
  let h: Harness;
  let api: string;
  let site: Server;
  let page: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    const patch = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: { session_recording_opt_in: true },
    });
    expect(patch.statusCode).toBe(200);
    api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const bundle = readFileSync(require.resolve('posthog-js/dist/array.full.js'));
    const html = `<!doctype html><html><body><h1>Shop</h1><button id="buy">Buy</button><input id="q">
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(h.boot.project_api_key)}, {
    api_host: ${JSON.stringify(api)},
    capture_pageview: true,
    autocapture: true,
    disable_session_recording: false,
    session_recording: { maskAllInputs: false },
    request_batching: true,
    opt_out_useragent_filter: true, // headless Chromium looks like a bot to posthog-js
  });
</script></body></html>`;
    site = createServer((req, res) => {
      if (req.url === '/posthog.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(bundle);
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(html);
      }
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    page = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await h?.close();
  });

  async function until<T>(query: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = await query();
      if (ok(value) || Date.now() > end) return value;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('captures the pageview and clicks, and records the session', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(page);
      await tab.waitForFunction(
        () => (globalThis as unknown as { posthog?: { __loaded?: boolean } }).posthog?.__loaded === true,
      );
      for (let i = 0; i < 3; i++) {
        await tab.click('#buy');
        await tab.fill('#q', `shoes ${i}`);
        await tab.waitForTimeout(300);
      }
      await tab.evaluate(() =>
        (globalThis as unknown as { posthog: { capture(e: string): void } }).posthog.capture('checkout'),
      );
      const events = h.stores.events.table('events');
      const counts = await until(
        () =>
          h.stores.events.query<{ event: string; n: number }>(
            `SELECT event, count() AS n FROM ${events} WHERE team_id = {t:Int64} GROUP BY event`,
            { params: { t: h.boot.project_id } },
          ),
        (rows) => ['$pageview', 'checkout'].every((e) => rows.some((r) => r.event === e)),
      );
      const byEvent = Object.fromEntries(counts.map((r) => [r.event, r.n]));
      expect(byEvent.$pageview).toBeGreaterThanOrEqual(1);
      expect(byEvent.checkout).toBe(1);
      expect(byEvent.$autocapture).toBeGreaterThanOrEqual(1);

      // Leaving the page flushes the recorder's buffer.
      await tab.goto('about:blank');
      const sessions = await until(
        () =>
          h.stores.events.query<{ session_id: string; clicks: number; size: number }>(
            `SELECT session_id, sum(click_count) AS clicks, sum(size) AS size
             FROM ${h.stores.events.table('session_replay_events')} WHERE team_id = {t:Int64} GROUP BY session_id`,
            { params: { t: h.boot.project_id } },
          ),
        (rows) => rows.length > 0 && (rows[0]?.clicks ?? 0) >= 1,
      );
      expect(sessions).toHaveLength(1);
      expect(sessions[0]?.size).toBeGreaterThan(0);
      const [pageview] = await h.stores.events.query<{ session: string }>(
        `SELECT $session_id AS session FROM ${events} WHERE team_id = {t:Int64} AND event = '$pageview' LIMIT 1`,
        { params: { t: h.boot.project_id } },
      );
      expect(pageview?.session).toBe(sessions[0]?.session_id);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
