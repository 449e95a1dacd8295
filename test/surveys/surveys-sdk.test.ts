import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const ORIGIN = 'https://shop.example';

/** What posthog-js asks about surveys: the public list, remote config, survey-only flag evaluation. */
describe(`surveys for SDKs (${backend})`, () => {
  let h: Harness;
  let base: string;
  let token: string;
  beforeAll(async () => {
    h = await startHarness();
    base = `/api/projects/${h.boot.project_id}/surveys/`;
    token = h.boot.project_api_key;
  });
  afterAll(async () => h?.close());

  const publicList = (t = token) =>
    h.app.inject({ method: 'GET', url: `/api/surveys/?token=${t}`, headers: { origin: ORIGIN } });
  const flagsWithConfig = async (body: Record<string, unknown> = {}) =>
    (
      await h.app.inject({
        method: 'POST',
        url: '/flags/?v=2&config=true',
        payload: { token, distinct_id: 'visitor-1', ...body },
      })
    ).json();
  const arrayConfig = async () =>
    (await h.app.inject({ method: 'GET', url: `/array/${token}/config` })).json();
  const configJs = async () => (await h.app.inject({ method: 'GET', url: `/array/${token}/config.js` })).body;

  it('answers the public list with CORS, errors and unknown SDK paths included', async () => {
    const empty = await publicList();
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(empty.json()).toEqual({ surveys: [], survey_config: null });
    const badToken = await publicList('phc_nope');
    expect(badToken.statusCode).toBe(401);
    expect(badToken.headers['access-control-allow-origin']).toBe(ORIGIN);
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/surveys/?token=x',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    // A method the SDK path lacks is answered by the not-found handler: with CORS too.
    const wrong = await h.app.inject({
      method: 'DELETE',
      url: '/api/surveys/?token=x',
      headers: { origin: ORIGIN },
    });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('lists launched surveys with their flag keys; config says surveys once one runs', async () => {
    expect((await arrayConfig()).surveys).toBe(false);
    const draft = (
      await h.request('POST', base, {
        body: { name: 'Draft', type: 'popover', questions: [{ type: 'open', question: 'Hm?' }] },
      })
    ).json();
    expect((await publicList()).json().surveys).toEqual([]);
    const api = await h.request('POST', base, {
      body: { name: 'Headless', type: 'api', start_date: new Date().toISOString(), questions: [] },
    });
    expect(api.statusCode).toBe(201);
    expect((await publicList()).json().surveys).toEqual([]);
    expect((await arrayConfig()).surveys).toBe(false);

    const launched = await h.request('PATCH', `${base}${draft.id}/`, {
      body: {
        start_date: new Date(Date.now() - 1000).toISOString(),
        targeting_flag_filters: { groups: [{ rollout_percentage: 100, properties: [] }] },
        conditions: { url: '/pricing', urlMatchType: 'icontains' },
      },
    });
    expect(launched.statusCode, launched.body).toBe(200);
    const [survey] = (await publicList()).json().surveys;
    expect(survey).toMatchObject({
      id: draft.id,
      name: 'Draft',
      type: 'popover',
      conditions: { url: '/pricing' },
      linked_flag_key: null,
      targeting_flag_key: launched.json().targeting_flag.key,
      internal_targeting_flag_key: launched.json().internal_targeting_flag.key,
    });
    expect(survey.questions[0]).toMatchObject({ type: 'open', question: 'Hm?' });
    // Launching turned the never-set opt-in on, and every config route sees it at once.
    const project = (await h.request('GET', `/api/projects/${h.boot.project_id}/`)).json();
    expect(project.surveys_opt_in).toBe(true);
    expect((await arrayConfig()).surveys).toBe(true);
    expect((await flagsWithConfig()).surveys).toBe(true);
    expect(await configJs()).toContain('"surveys":true');

    // Opting out wins over running surveys.
    await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, { body: { surveys_opt_in: false } });
    expect((await arrayConfig()).surveys).toBe(false);
    await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, { body: { surveys_opt_in: true } });
    // Stopped: no longer active.
    await h.request('PATCH', `${base}${draft.id}/`, { body: { end_date: new Date().toISOString() } });
    expect((await arrayConfig()).surveys).toBe(false);
  });

  it('only_evaluate_survey_feature_flags evaluates only the flags surveys made', async () => {
    await h.request('POST', `/api/projects/${h.boot.project_id}/feature_flags/`, {
      body: { key: 'plain-flag', filters: { groups: [{ rollout_percentage: 100 }] } },
    });
    const all = Object.keys((await flagsWithConfig()).flags);
    expect(all).toContain('plain-flag');
    const only = Object.keys((await flagsWithConfig({ only_evaluate_survey_feature_flags: true })).flags);
    expect(only.length).toBeGreaterThan(0);
    expect(only.every((k) => k.startsWith('survey-targeting-'))).toBe(true);
  });

  it('reflects the other remote config settings at once', async () => {
    const before = await arrayConfig();
    expect(before).toMatchObject({ heatmaps: false, captureDeadClicks: false, autocaptureExceptions: false });
    const res = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
      body: {
        heatmaps_opt_in: true,
        capture_dead_clicks: true,
        autocapture_exceptions_opt_in: true,
        autocapture_web_vitals_opt_in: true,
        autocapture_web_vitals_allowed_metrics: ['LCP', 'CLS'],
        capture_performance_opt_in: false,
        autocapture_opt_out: true,
        session_recording_opt_in: true,
        capture_console_log_opt_in: false,
        session_recording_sample_rate: 0.5,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const config = await arrayConfig();
    expect(config).toMatchObject({
      heatmaps: true,
      captureDeadClicks: true,
      autocaptureExceptions: true,
      errorTracking: { autocaptureExceptions: true },
      autocapture_opt_out: true,
      capturePerformance: {
        network_timing: false,
        web_vitals: true,
        web_vitals_allowed_metrics: ['LCP', 'CLS'],
      },
      sessionRecording: { consoleLogRecordingEnabled: false, sampleRate: '0.50' },
    });
    expect((await flagsWithConfig()).heatmaps).toBe(true);
  });
});
