import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSymbolData } from '../../src/domain/error-tracking/symbol-data.js';
import { CHROMIUM, hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

if (!hasChromium) console.warn(`error-tracking-browser: skipped, no Chromium at ${CHROMIUM}`);
const require = createRequire(import.meta.url);

/**
 * posthog-js (unmodified) with exception autocapture in headless Chromium, throwing from a minified
 * bundle whose map was uploaded first through the symbol-set protocol: the frame shows the
 * original file, line and function.
 */
describe.skipIf(!hasChromium)(`posthog-js exception autocapture with a source map (${backend})`, () => {
  let h: Harness;
  let api: string;
  let site: Server;
  let page: string;
  const CHUNK = 'chunk-browser-1';

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const source = [
      'function applyCoupon(cart, code) {',
      '  if (!cart.coupons.includes(code)) {',
      "    throw new TypeError('unknown coupon ' + code);",
      '  }',
      '  return cart.total;',
      '}',
      "document.getElementById('buy').addEventListener('click', () => applyCoupon({ coupons: [] }, 'SPRING'));",
    ].join('\n');
    const out = await transform(source, {
      minify: true,
      sourcemap: 'external',
      sourcefile: 'src/checkout.ts',
      format: 'iife',
      sourcesContent: true,
    });
    // What `posthog-cli sourcemap inject` adds: the chunk id keyed by this file's own stack, which
    // posthog-js reads to put `chunk_id` on the file's frames. Appended, so the mappings hold.
    const app = `${out.code}\n;!function(){try{var g=globalThis;g._posthogChunkIds=g._posthogChunkIds||{};g._posthogChunkIds[new Error().stack]=${JSON.stringify(CHUNK)}}catch(e){}}();\n`;
    const data = writeSymbolData(app, out.map);
    const headers = { authorization: `Bearer ${h.key}`, 'content-type': 'application/json' };
    const project = `${api}/api/projects/${h.boot.project_id}/`;
    const start = await fetch(`${project}error_tracking/symbol_sets/bulk_start_upload`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ symbol_sets: [{ chunk_id: CHUNK, content_hash: 'h1' }] }),
    });
    const target = (
      (await start.json()) as {
        id_map: Record<
          string,
          { symbol_set_id: string; presigned_url: { url: string; fields: Record<string, string> } }
        >;
      }
    ).id_map[CHUNK];
    if (!target) throw new Error('no upload target');
    const form = new FormData();
    for (const [k, v] of Object.entries(target.presigned_url.fields)) form.append(k, v);
    form.append('file', new Blob([data]), 'file');
    expect((await fetch(target.presigned_url.url, { method: 'POST', body: form })).status).toBe(204);
    const finish = await fetch(`${project}error_tracking/symbol_sets/bulk_finish_upload`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        content_hashes: { [target.symbol_set_id]: createHash('sha256').update(data).digest('hex') },
      }),
    });
    expect(finish.status).toBe(201);

    const bundle = readFileSync(require.resolve('posthog-js/dist/array.full.js'));
    const html = `<!doctype html><html><body><button id="buy">Buy</button>
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(h.boot.project_api_key)}, {
    api_host: ${JSON.stringify(api)},
    capture_pageview: false,
    autocapture: false,
    capture_exceptions: true,
    disable_session_recording: true,
    opt_out_useragent_filter: true,
  });
</script>
<script src="/static/app.min.js"></script></body></html>`;
    site = createServer((req, res) => {
      if (req.url === '/posthog.js' || req.url === '/static/app.min.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        res.end(req.url === '/posthog.js' ? bundle : app);
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

  it('resolves the thrown frame to the original file, line and function', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(page);
      await tab.waitForFunction(
        () => (globalThis as unknown as { posthog?: { __loaded?: boolean } }).posthog?.__loaded,
      );
      await tab.waitForTimeout(500);
      await tab.click('#buy');
      let rows: unknown[][] = [];
      for (let i = 0; i < 40 && rows.length === 0; i++) {
        await tab.waitForTimeout(250);
        const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
          body: {
            query: {
              kind: 'HogQLQuery',
              query:
                "select properties.$exception_list, properties.$exception_issue_id from events where event = '$exception'",
            },
          },
        });
        rows = res.json().results;
      }
      expect(rows).toHaveLength(1);
      const list = JSON.parse(String(rows[0]?.[0])) as {
        type: string;
        stacktrace: { frames: Record<string, unknown>[] };
      }[];
      expect(list[0]?.type).toBe('TypeError');
      // Oldest first: the throw site is the last frame.
      const frame = list[0]?.stacktrace.frames.at(-1);
      expect(frame, JSON.stringify(list[0]?.stacktrace.frames)).toMatchObject({
        source: 'src/checkout.ts',
        line: 3,
        resolved: true,
        resolved_name: 'applyCoupon',
      });
      expect(rows[0]?.[1]).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await browser.close();
    }
  });
});
