import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDuePlaylists } from '../../src/domain/recordings/playlist-counter.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { type CraftedEvent, sendEvents, sendRecordings } from '../helpers/recordings.js';

const MIN = 60_000;

/**
 * Actions and autocapture element filters in recording filters, on real stores. Six recordings in
 * the last hours, each with its own events:
 *   s1 120 s  $pageview /checkout?step=1 {plan: pro}                      checkout ✓ (pageview step)
 *   s2  20 s  $autocapture button "Buy now" {plan: free}                   checkout ✓ (text step)
 *             $pageview /home {plan: pro}
 *   s3  30 s  $pageview /home; $autocapture button "Buy later"            checkout ✗
 *   s4  40 s  signup /checkout {plan: pro}; $pageleave /checkout          checkout ✗ (not pageviews)
 *   s5  90 s  $autocapture link "Buy now" href /buy?x="1" {plan: pro}     checkout ✓ (text step)
 *   s6  50 s  no events                                                   checkout ✗
 * "Checkout intent" = $pageview whose URL contains /checkout, OR $autocapture whose element text is
 * exactly "Buy now". "Signed up" = a signup event.
 */
const BUTTON = 'button.btn.primary:nth-child="1"text="Buy now";div.card:attr_id="c1";body';
const LATER = 'button.btn:text="Buy later";div.card:attr_id="c2";body';
const LINK = 'a:href="/buy?x=\\"1\\""text="Buy now";nav;body';

describe(`actions and element filters in recording filters (${backend})`, () => {
  let h: Harness;
  let base: string;
  let checkout: number;
  let signedUp: number;
  const now = Date.now();
  const start = (i: number) => now - (10 - i) * 10 * MIN;
  const ev = (
    session: number,
    event: string,
    properties: Record<string, unknown>,
    offset = 1000,
  ): CraftedEvent => ({
    event,
    distinctId: `u${session}`,
    sessionId: `s${session}`,
    timestamp: start(session) + offset,
    properties,
  });

  async function createAction(body: Record<string, unknown>, projectId: number, key = h.key) {
    const res = await h.request('POST', `/api/projects/${projectId}/actions/`, { body, key });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as number;
  }

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2', PLAYLIST_COUNT_INTERVAL_MS: '0' });
    base = `/api/environments/${h.boot.project_id}/session_recordings/`;
    await sendEvents(h, [
      ev(1, '$pageview', { $current_url: 'https://shop.test/checkout?step=1', plan: 'pro' }),
      ev(2, '$autocapture', { $elements_chain: BUTTON, plan: 'free' }),
      ev(2, '$pageview', { $current_url: 'https://shop.test/home', plan: 'pro' }, 2000),
      ev(3, '$pageview', { $current_url: 'https://shop.test/home' }),
      ev(3, '$autocapture', { $elements_chain: LATER }, 2000),
      ev(4, 'signup', { $current_url: 'https://shop.test/checkout', plan: 'pro' }),
      ev(4, '$pageleave', { $current_url: 'https://shop.test/checkout' }, 2000),
      ev(5, '$autocapture', { $elements_chain: LINK, plan: 'pro' }),
    ]);
    const durations = [120, 20, 30, 40, 90, 50];
    await sendRecordings(
      h,
      durations.map((d, i) => ({
        sessionId: `s${i + 1}`,
        distinctId: `u${i + 1}`,
        start: start(i + 1),
        durationMs: d * 1000,
      })),
    );
    checkout = await createAction(
      {
        name: 'Checkout intent',
        steps: [
          { event: '$pageview', url: '/checkout', url_matching: 'contains' },
          { event: '$autocapture', text: 'Buy now', text_matching: 'exact' },
        ],
      },
      h.boot.project_id,
    );
    signedUp = await createAction({ name: 'Signed up', steps: [{ event: 'signup' }] }, h.boot.project_id);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const q = (params: Record<string, unknown>) =>
    Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
      .join('&');
  const list = (params: Record<string, unknown>) => h.request('GET', `${base}?${q(params)}`);
  async function ids(params: Record<string, unknown>) {
    const res = await list(params);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().results as Array<{ id: string }>).map((r) => r.id).sort();
  }
  const group = (type: 'AND' | 'OR', ...values: unknown[]) => ({
    filter_group: { type: 'AND', values: [{ type, values }] },
  });
  const action = (id: number, properties: unknown[] = []) => ({ id, type: 'actions', properties });
  const element = (key: string, value: unknown, operator = 'exact') => ({
    type: 'element',
    key,
    value,
    operator,
  });

  it('matches recordings whose session has an event matching the action', async () => {
    expect(await ids(group('AND', action(checkout)))).toEqual(['s1', 's2', 's5']);
    // The legacy list spelling, with the id as a string as some clients send it.
    expect(await ids({ actions: [{ id: String(checkout), type: 'actions' }] })).toEqual(['s1', 's2', 's5']);
    expect(await ids(group('AND', action(signedUp)))).toEqual(['s4']);
  });

  it('applies the entry’s own property filters to the same event', async () => {
    // s2's action event is plan=free; its plan=pro event is not the action's.
    const pro = { type: 'event', key: 'plan', value: 'pro', operator: 'exact' };
    expect(await ids(group('AND', action(checkout, [pro])))).toEqual(['s1', 's5']);
    // An element filter on the entry: only the link (s5) among the action's events.
    expect(await ids(group('AND', action(checkout, [element('tag_name', 'a')])))).toEqual(['s5']);
  });

  it('filters by autocapture elements at top level and inside event entries', async () => {
    expect(await ids(group('AND', element('text', 'buy', 'icontains')))).toEqual(['s2', 's3', 's5']);
    expect(await ids(group('AND', element('href', ['/buy?x="1"'])))).toEqual(['s5']);
    expect(await ids(group('AND', element('selector', 'div.card > button')))).toEqual(['s2', 's3']);
    expect(await ids({ properties: [element('text', '^Buy (now|later)$', 'regex')] })).toEqual([
      's2',
      's3',
      's5',
    ]);
    const autocapture = (properties: unknown[]) => ({ id: '$autocapture', type: 'events', properties });
    expect(await ids(group('AND', autocapture([element('text', 'Buy now')])))).toEqual(['s2', 's5']);
    // Negated: an autocapture none of whose elements says "Buy now" (s3's "Buy later").
    expect(await ids(group('AND', autocapture([element('text', 'Buy now', 'is_not')])))).toEqual(['s3']);
  });

  it('combines with other filters under AND and OR', async () => {
    const pageview = { id: '$pageview', type: 'events' };
    expect(await ids(group('AND', action(checkout), pageview))).toEqual(['s1', 's2']);
    expect(await ids(group('OR', action(signedUp), element('tag_name', 'a')))).toEqual(['s4', 's5']);
    const long = { type: 'recording', key: 'duration', value: 60, operator: 'gt' };
    expect(await ids(group('AND', action(checkout), long))).toEqual(['s1', 's5']);
    expect(
      await ids({ operand: 'OR', actions: [action(checkout)], events: [{ id: 'signup', type: 'events' }] }),
    ).toEqual(['s1', 's2', 's4', 's5']);
  });

  it('answers 400 naming the filter for an unknown or another project’s action', async () => {
    const unknown = await list(group('AND', action(987654)));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Action 987654 does not exist.',
      attr: 'filter_group__values__0__values__0__id',
    });
    const other = await h.owner('Other org');
    const theirs = await createAction(
      { name: 'theirs', steps: [{ event: 'signup' }] },
      other.projectId,
      other.key,
    );
    const cross = await list({ actions: [action(checkout), action(theirs)] });
    expect(cross.statusCode).toBe(400);
    expect(cross.json()).toMatchObject({
      detail: `Action ${theirs} does not exist.`,
      attr: 'actions__1__id',
    });
    const bad = await list(group('AND', { type: 'actions', id: 'checkout' }));
    expect(bad.json()).toMatchObject({ attr: 'filter_group__values__0__values__0__id' });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 400 for element filters it cannot apply', async () => {
    const op = await list(group('AND', element('selector', 'button', 'icontains')));
    expect(op.statusCode).toBe(400);
    expect(op.json()).toMatchObject({ attr: 'filter_group__values__0__values__0__operator' });
    const key = await list(group('AND', element('color', 'red')));
    expect(key.json()).toMatchObject({
      attr: 'filter_group__values__0__values__0__key',
      code: 'invalid_choice',
    });
    const selector = await list(group('AND', element('selector', 'div >')));
    expect(selector.json()).toMatchObject({ attr: 'filter_group__values__0__values__0__value' });
    expect(selector.statusCode).toBe(400);
  });

  it('counts a filters playlist using an action, and refuses one naming no action of the project', async () => {
    const playlists = `/api/environments/${h.boot.project_id}/session_recording_playlists/`;
    const created = await h.request('POST', playlists, {
      body: { type: 'filters', filters: { actions: [action(checkout)] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const shortId = created.json().short_id as string;
    const withProps = await h.request('POST', playlists, {
      body: { type: 'filters', filters: group('AND', action(checkout), element('text', 'Buy now')) },
    });
    expect(withProps.statusCode, withProps.body).toBe(201);
    await countDuePlaylists(h.deps, { maxAgeMs: -1, batch: 50 });
    const counts = async (id: string) =>
      (await h.request('GET', `${playlists}${id}/`)).json().recordings_counts.saved_filters;
    expect(await counts(shortId)).toMatchObject({ count: 3, has_more: false });
    expect(await counts(withProps.json().short_id)).toMatchObject({ count: 2 });
    const listed = await h.request('GET', `${playlists}${shortId}/recordings/`);
    expect(
      listed
        .json()
        .results.map((r: { id: string }) => r.id)
        .sort(),
    ).toEqual(['s1', 's2', 's5']);

    const missing = await h.request('POST', playlists, {
      body: { type: 'filters', filters: { actions: [action(987654)] } },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      attr: 'filters__actions__0__id',
      detail: 'Action 987654 does not exist.',
    });
  });
});
