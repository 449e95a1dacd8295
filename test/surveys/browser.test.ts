import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/chromium.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);

/** PostHog's standard HTML snippet (as in test/flags/browser.test.ts), loading posthog-js from Burrow. */
const snippet = (token: string, apiHost: string) => `<script>
!function(t,e){var o,n,p,r;e.__SV||(window.posthog&&window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSurveysLoaded onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey canRenderSurveyAsync identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug getPageViewId captureTraceFeedback captureTraceMetric".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);
posthog.init(${JSON.stringify(token)}, {
  api_host: ${JSON.stringify(apiHost)},
  defaults: '2025-05-24',
  person_profiles: 'identified_only',
  opt_out_useragent_filter: true,
});
</script>`;

type PH = {
  getActiveMatchingSurveys(cb: (s: Array<{ id: string }>) => void, force?: boolean): void;
  capture(event: string, props: Record<string, unknown>): void;
  identify(id: string): void;
  updateEarlyAccessFeatureEnrollment(key: string, on: boolean): void;
  getEarlyAccessFeatures(cb: (f: Array<{ flagKey: string }>) => void, force?: boolean): void;
  isFeatureEnabled(key: string): boolean;
};

describe.skipIf(!hasChromium)(`posthog-js with surveys and early access (${backend})`, () => {
  let h: Harness;
  let api: string;
  let site: Server;
  let origin: string;
  let survey: { id: string; questions: Array<{ id: string }> };
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    survey = (
      await h.request('POST', `/api/projects/${h.boot.project_id}/surveys/`, {
        body: {
          name: 'Pricing feedback',
          type: 'popover',
          questions: [{ type: 'open', question: 'What is missing?' }],
          conditions: { url: '/pricing', urlMatchType: 'icontains' },
          start_date: new Date(Date.now() - 60_000).toISOString(),
        },
      })
    ).json();
    await h.request('POST', `/api/projects/${h.boot.project_id}/early_access_feature/`, {
      body: { name: 'Dark Mode', stage: 'beta' },
    });
    api = await h.app.listen({ host: '127.0.0.1', port: 0 });
    const html = `<!doctype html><html><head>${snippet(h.boot.project_api_key, api)}</head><body><h1>Shop</h1></body></html>`;
    site = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(html);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
    await h?.close();
  });

  it('matches the survey on its URL only, the answer reaches stats; enrolment flips the flag', async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      const matching = async (path: string) => {
        await tab.goto(`${origin}${path}`);
        await tab.waitForFunction(
          () => (globalThis as unknown as { posthog: { __loaded?: boolean } }).posthog.__loaded,
        );
        return tab.evaluate(
          () =>
            new Promise<string[]>((resolve) =>
              (globalThis as unknown as { posthog: PH }).posthog.getActiveMatchingSurveys(
                (s) => resolve(s.map((x) => x.id)),
                true,
              ),
            ),
        );
      };
      expect(await matching('/')).toEqual([]);
      expect(await matching('/pricing')).toEqual([survey.id]);
      await tab.evaluate(
        ([id, key]) => {
          (globalThis as unknown as { posthog: PH }).posthog.capture('survey sent', {
            $survey_id: id,
            [key as string]: 'A dark theme',
          });
        },
        [survey.id, `$survey_response_${survey.questions[0]?.id}`],
      );
      const enabled = await tab.evaluate(
        () =>
          new Promise<boolean>((resolve) => {
            const ph = (globalThis as unknown as { posthog: PH }).posthog;
            ph.identify('enrolled-user');
            ph.getEarlyAccessFeatures(() => {
              ph.updateEarlyAccessFeatureEnrollment('dark-mode', true);
              setTimeout(() => resolve(ph.isFeatureEnabled('dark-mode')), 500);
            }, true);
          }),
      );
      expect(enabled).toBe(true);
      const flags = await h.app.inject({
        method: 'POST',
        url: '/flags/?v=2',
        payload: { token: h.boot.project_api_key, distinct_id: 'someone-else' },
      });
      expect(flags.json().flags['dark-mode'].enabled).toBe(false);
      await tab.goto('about:blank');
      const end = Date.now() + 20_000;
      let summary: { responses: number; questions: Array<{ answers?: string[] }> } = {
        responses: 0,
        questions: [],
      };
      while (Date.now() < end && summary.responses === 0) {
        await new Promise((r) => setTimeout(r, 300));
        summary = (
          await h.request('GET', `/api/projects/${h.boot.project_id}/surveys/${survey.id}/summary/`)
        ).json();
      }
      expect(summary.questions[0]?.answers).toEqual(['A dark theme']);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
