import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settledDeletions } from '../helpers/deletions.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, type RawEvent, uuid } from '../helpers/query-lists.js';
import { sendRecordings } from '../helpers/recordings.js';

/**
 * `delete_events=true` removes the person from every table of the engine, not only from sight:
 * events under each of its distinct ids (also those written before a merge, under the other
 * person's id), the sessions they made, recordings, cohort membership; another person in the
 * project and the same distinct ids in another project keep theirs.
 */
let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;
const now = Date.now();
const ev = (
  event: string,
  distinct_id: string,
  properties: Record<string, unknown> = {},
  ago = 60,
): RawEvent => ({
  event,
  distinct_id,
  timestamp: new Date(now - ago * 1000).toISOString(),
  uuid: uuid(),
  properties,
});

/** Rows as stored, FINAL and without the printer: what is on disk for readers. */
const count = async (table: string, where: string, teamId = project) => {
  const rows = await h.stores.events.query<{ n: number }>(
    `SELECT count() AS n FROM ${h.stores.events.table(table)} WHERE team_id = {t:Int64} AND ${where}`,
    { params: { t: teamId } },
  );
  return Number(rows[0]?.n);
};

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'anon-d', { $session_id: 'sess-d1' }, 300),
    ev(
      '$identify',
      'dora',
      { $anon_distinct_id: 'anon-d', $session_id: 'sess-d1', $set: { plan: 'pro' } },
      200,
    ),
    ev('$pageview', 'dora', { $session_id: 'sess-d2' }, 100),
    ev('$pageview', 'eve', { $session_id: 'sess-e1' }, 100),
  ]);
  await sendRecordings(h, [
    { sessionId: 'sess-d2', distinctId: 'dora', start: now - 100_000, durationMs: 5000 },
    { sessionId: 'sess-e1', distinctId: 'eve', start: now - 100_000, durationMs: 5000 },
  ]);
  await capture(
    h,
    other.token,
    other.projectId,
    [ev('$pageview', 'dora', { $session_id: 'sess-d2' })],
    other.key,
  );
  const cohort = await h.request('POST', `/api/projects/${project}/cohorts/`, {
    body: {
      name: 'Pro',
      filters: {
        properties: {
          type: 'AND',
          values: [
            { type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: ['pro'] }] },
          ],
        },
      },
    },
  });
  expect(cohort.statusCode, cohort.body).toBe(201);
  // Recordings arrive through their own path: wait for them.
  for (let i = 0; i < 200 && (await count('session_replay_events', "session_id = 'sess-d2'")) === 0; i++)
    await new Promise((r) => setTimeout(r, 50));
});
afterAll(async () => h?.close());

describe('person deletion with delete_events', () => {
  it('removes the person’s events, sessions, recordings and cohort rows; nobody else’s', async () => {
    const list = await h.request('GET', `/api/projects/${project}/persons/?distinct_id=dora`);
    const dora = (list.json() as { results: Array<{ id: string; distinct_ids: string[] }> }).results[0];
    expect(dora?.distinct_ids.sort()).toEqual(['anon-d', 'dora']);
    expect(await count('events', "distinct_id IN ('dora', 'anon-d')")).toBe(3);
    expect(await count('session_replay_events', "session_id = 'sess-d2'")).toBeGreaterThan(0);

    const res = await h.request('DELETE', `/api/projects/${project}/persons/${dora?.id}/?delete_events=true`);
    expect(res.statusCode).toBe(204);
    // The person is gone at once; its data goes in the background, with progress to read.
    expect(await count('person', `id = '${dora?.id}'`)).toBe(0);
    const [deletion] = await settledDeletions(h, project);
    expect(deletion).toMatchObject({ scope: 'events', status: 'done', persons: 1, progress: 1, error: null });
    expect(deletion?.steps).toEqual([
      { table: 'session_replay_snapshots', rows: expect.any(Number), done: true },
      { table: 'session_replay_events', rows: expect.any(Number), done: true },
      { table: 'sessions', rows: 2, done: true },
      { table: 'events', rows: 3, done: true },
    ]);

    expect(await count('events', "distinct_id IN ('dora', 'anon-d')")).toBe(0);
    expect(await count('sessions', "session_id IN ('sess-d1', 'sess-d2')")).toBe(0);
    expect(await count('session_replay_events', "session_id = 'sess-d2'")).toBe(0);
    expect(await count('session_replay_snapshots', "session_id = 'sess-d2'")).toBe(0);
    expect(await count('cohort_people', `person_id = '${dora?.id}'`)).toBe(0);
    expect(await count('person', `id = '${dora?.id}'`)).toBe(0);

    // Eve, and the other project's "dora", are untouched.
    expect(await count('events', "distinct_id = 'eve'")).toBe(1);
    expect(await count('session_replay_events', "session_id = 'sess-e1'")).toBeGreaterThan(0);
    expect(await count('events', "distinct_id = 'dora'", other.projectId)).toBe(1);
    expect(await count('sessions', "session_id = 'sess-d2'", other.projectId)).toBe(1);
  });

  it('answers 404 when the same person is deleted twice', async () => {
    const eve = (await h.request('GET', `/api/projects/${project}/persons/?distinct_id=eve`)).json() as {
      results: Array<{ id: string }>;
    };
    const url = `/api/projects/${project}/persons/${eve.results[0]?.id}/?delete_events=true`;
    expect((await h.request('DELETE', url)).statusCode).toBe(204);
    await settledDeletions(h, project);
    const again = await h.request('DELETE', url);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ type: 'invalid_request', code: 'not_found' });
  });
});
