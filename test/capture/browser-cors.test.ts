import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * A page on another origin calling Burrow with `fetch` in real Chromium: the browser hands the
 * script an error answer's status and body only when the answer carries CORS headers, otherwise
 * the SDK sees a network error and cannot tell a 404 from an outage.
 */
describe.skipIf(!hasChromium)(`cross-origin fetch from Chromium reads SDK error answers (${backend})`, () => {
  let h: Harness;
  let api: string;
  let site: Server;
  let page: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>site</body></html>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    // `localhost` vs `127.0.0.1`: a different origin than the API's.
    page = `http://localhost:${(site.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await h?.close();
  });

  it('reads a 404, capture 400/401 and a v1 answer, credentials included', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(page);
      const token = h.boot.project_api_key;
      const results = await tab.evaluate(
        async ({ api, token }) => {
          const call = async (path: string, init: RequestInit) => {
            try {
              const res = await fetch(api + path, { credentials: 'include', ...init });
              return { status: res.status, body: await res.json() };
            } catch (error) {
              return { status: 0, body: String(error) };
            }
          };
          const json = { 'content-type': 'application/json' };
          return {
            missing: await call('/i/v9/unknown', { method: 'POST', body: '{}' }),
            missingJson: await call('/ingest/i/v0/e/', { method: 'POST', headers: json, body: '{' }),
            malformed: await call('/e/', { method: 'POST', body: '{bad' }),
            badToken: await call('/batch/', {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ api_key: 'phc_wrong', batch: [{ event: 'x', distinct_id: 'a' }] }),
            }),
            v1: await call('/i/v1/analytics/events', {
              method: 'POST',
              headers: {
                ...json,
                authorization: `Bearer ${token}`,
                'posthog-sdk-info': 'posthog-js/1.0.0',
                'posthog-attempt': '1',
                'posthog-request-id': 'r',
                'posthog-request-timestamp': new Date().toISOString(),
              },
              body: JSON.stringify({
                created_at: new Date().toISOString(),
                batch: [
                  {
                    event: 'from browser',
                    uuid: '0190a0b0-0000-7000-8000-00000000abcd',
                    distinct_id: 'b',
                    timestamp: new Date().toISOString(),
                  },
                ],
              }),
            }),
          };
        },
        { api, token },
      );
      expect(results.missing).toEqual({
        status: 404,
        body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null },
      });
      // A JSON post is preflighted: the unknown path allows it, then answers 404.
      expect(results.missingJson.status).toBe(404);
      expect(results.malformed).toMatchObject({ status: 400, body: { code: 'invalid_payload' } });
      expect(results.badToken).toMatchObject({ status: 401, body: { code: 'invalid_project_api_key' } });
      expect(results.v1).toEqual({
        status: 200,
        body: { results: { '0190a0b0-0000-7000-8000-00000000abcd': { result: 'ok' } } },
      });
    } finally {
      await browser.close();
    }
  });
});
