import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTHOG_JS_VERSION } from '../../src/api/static.js';
import { launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

/** PostHog's standard HTML snippet: it loads `${api_host}/static/array.js`, here from Burrow. */
const snippet = (token: string, apiHost: string) => `<script>
!function(t,e){var o,n,p,r;e.__SV||(window.posthog&&window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSurveysLoaded onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey canRenderSurveyAsync identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug getPageViewId captureTraceFeedback captureTraceMetric".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);
posthog.init(${JSON.stringify(token)}, {
  api_host: ${JSON.stringify(apiHost)},
  defaults: '2025-05-24',
  person_profiles: 'identified_only',
  opt_out_useragent_filter: true,
});
window.__flagCalls = [];
posthog.onFeatureFlags(function (flags, variants) { window.__flagCalls.push({ flags: flags, variants: variants }); });
</script>`;

describe.skipIf(!hasChromium)(`posthog-js from Burrow's static files, with flags (${backend})`, () => {
  let h: Harness;
  let api: string;
  let site: Server;
  let page: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: { session_recording_opt_in: true },
    });
    const base = `/api/projects/${h.boot.project_id}/feature_flags/`;
    await h.request('POST', base, {
      body: { key: 'new-nav', filters: { groups: [{ rollout_percentage: 100 }] } },
    });
    await h.request('POST', base, {
      body: {
        key: 'checkout-test',
        filters: {
          groups: [{ rollout_percentage: 100, variant: 'blue' }],
          multivariate: {
            variants: [
              { key: 'blue', rollout_percentage: 50 },
              { key: 'red', rollout_percentage: 50 },
            ],
          },
          payloads: { blue: { button: 'Buy now' } },
        },
      },
    });
    await h.request('POST', base, {
      body: { key: 'off-flag', filters: { groups: [{ rollout_percentage: 0 }] } },
    });
    api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const html = `<!doctype html><html><head>${snippet(h.boot.project_api_key, api)}</head><body><h1>Shop</h1><button id="buy">Buy</button></body></html>`;
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html);
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

  it('loads the SDK from Burrow, reads a flag and its variant (onFeatureFlags fires), captures and records', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      const fromBurrow: string[] = [];
      tab.on('requestfinished', (req) => {
        if (req.url().startsWith(`${api}/static/`)) fromBurrow.push(new URL(req.url()).pathname);
      });
      await tab.goto(page);
      await tab.waitForFunction(
        () => (globalThis as unknown as { __flagCalls: unknown[] }).__flagCalls.length > 0,
        undefined,
        { timeout: 20_000 },
      );
      const seen = await tab.evaluate(() => {
        const g = globalThis as unknown as {
          __flagCalls: Array<{ flags: string[]; variants: Record<string, string | boolean> }>;
          posthog: {
            getFeatureFlag(k: string): unknown;
            isFeatureEnabled(k: string): boolean;
            getFeatureFlagPayload(k: string): unknown;
          };
        };
        return {
          call: g.__flagCalls[g.__flagCalls.length - 1],
          variant: g.posthog.getFeatureFlag('checkout-test'),
          nav: g.posthog.isFeatureEnabled('new-nav'),
          off: g.posthog.isFeatureEnabled('off-flag'),
          payload: g.posthog.getFeatureFlagPayload('checkout-test'),
        };
      });
      expect(seen.variant).toBe('blue');
      expect(seen.nav).toBe(true);
      expect(seen.off).toBe(false);
      expect(seen.payload).toEqual({ button: 'Buy now' });
      expect(seen.call?.flags).toEqual(expect.arrayContaining(['new-nav', 'checkout-test']));
      expect(seen.call?.variants['checkout-test']).toBe('blue');
      expect(fromBurrow).toContain('/static/array.js');

      await tab.click('#buy');
      await tab.waitForTimeout(1500);
      await tab.goto('about:blank');
      const events = h.stores.events.table('events');
      const rows = await until(
        () =>
          h.stores.events.query<{ event: string }>(
            `SELECT DISTINCT event FROM ${events} WHERE team_id = {t:Int64}`,
            {
              params: { t: h.boot.project_id },
            },
          ),
        (r) => r.some((x) => x.event === '$pageview'),
      );
      expect(rows.map((r) => r.event)).toContain('$pageview');
      const sessions = await until(
        () =>
          h.stores.events.query<{ session_id: string }>(
            `SELECT session_id FROM ${h.stores.events.table('session_replay_events')} WHERE team_id = {t:Int64} GROUP BY session_id`,
            { params: { t: h.boot.project_id } },
          ),
        (r) => r.length > 0,
      );
      expect(sessions.length).toBeGreaterThanOrEqual(1);
      // The recorder is one of the lazily loaded bundles, also served by Burrow.
      expect(fromBurrow.some((p) => /recorder/.test(p))).toBe(true);
    } finally {
      await browser.close();
    }
  }, 90_000);

  it('serves bundles with content types and cache headers, versioned paths, and nothing else', async () => {
    const js = await fetch(`${api}/static/array.full.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = js.headers.get('etag') as string;
    expect((await fetch(`${api}/static/array.full.js`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    const versioned = await fetch(`${api}/static/${POSTHOG_JS_VERSION}/recorder.js`);
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${api}/static/0.0.1/recorder.js`)).status).toBe(404);
    for (const bad of [
      '/static/..%2Fpackage.json',
      '/static/%2e%2e/%2e%2e/package.json',
      '/static/../../package.json',
      '/static/array.d.ts',
      '/static/nope.js',
      '/static/main.js%00.js',
      // ('/static/..' is the site root once a client normalises it: the console's page.)
      '/static/',
      '/static/.%2e/.%2e/etc/passwd',
    ]) {
      const res = await fetch(`${api}${bad}`);
      expect(res.status, bad).toBe(404);
    }
    for (const name of [
      'lazy-recorder.js',
      'surveys.js',
      'exception-autocapture.js',
      'web-vitals.js',
      'dead-clicks-autocapture.js',
      'recorder.js',
    ]) {
      expect((await fetch(`${api}/static/${name}`)).status, name).toBe(200);
    }
    const config = await fetch(`${api}/array/${h.boot.project_api_key}/config.js`);
    expect(config.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await config.text()).toContain('window._POSTHOG_REMOTE_CONFIG');
    const withConfig = await fetch(`${api}/array/${h.boot.project_api_key}/array.js`);
    expect(withConfig.status).toBe(200);
    expect(await withConfig.text()).toContain('"hasFeatureFlags":true');
    expect((await fetch(`${api}/array/phc_nope/array.js`)).status).toBe(401);
  });
});
