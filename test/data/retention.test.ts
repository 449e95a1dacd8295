import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetentionPass } from '../../src/domain/data-lifecycle/retention-job.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, ok, otherProject, type RawEvent, uuid } from '../helpers/query-lists.js';

/** Retention periods: hidden from queries at once, deleted from the engine by the job, per project. */
let h: Harness;
let project: number;
let other: Awaited<ReturnType<typeof otherProject>>;
const DAY = 86_400_000;

const ago = (days: number, distinct = 'u1'): RawEvent => ({
  event: `$pageview`,
  distinct_id: distinct,
  timestamp: new Date(Date.now() - days * DAY).toISOString(),
  uuid: uuid(),
  properties: { age_days: days },
});
const AGES = [2, 40, 100];

/** Rows as the engine holds them, without the printer (and so without the retention cut). */
const stored = async (teamId: number) => {
  const rows = await h.stores.events.query<{ n: number }>(
    `SELECT count() AS n FROM ${h.stores.events.table('events')} FINAL WHERE team_id = {t:Int64}`,
    { params: { t: teamId } },
  );
  return Number(rows[0]?.n);
};
const visible = async (projectId: number, key = h.key) =>
  (await ok(h, projectId, { kind: 'HogQLQuery', query: 'SELECT count() FROM events' }, key)).results[0]?.[0];
const patch = (body: Record<string, unknown>, projectId = project) =>
  h.request('PATCH', `/api/projects/${projectId}/`, { body });

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  other = await otherProject(h);
  await capture(
    h,
    h.boot.project_api_key,
    project,
    AGES.map((d) => ago(d)),
  );
  await capture(
    h,
    other.token,
    other.projectId,
    AGES.map((d) => ago(d)),
    other.key,
  );
});
afterAll(async () => h?.close());

describe('retention periods', () => {
  it('reports the disk each project uses, to that project only', async () => {
    const res = await h.request('GET', `/api/projects/${project}/storage/`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as {
      tables: Array<{ table: string; rows: number; estimated_bytes: number }>;
      estimated_bytes: number;
      oldest_event: string;
    };
    expect(body.tables.find((t) => t.table === 'events')).toMatchObject({ rows: 3 });
    expect(body.estimated_bytes).toBeGreaterThan(0);
    const oldestDays = (Date.now() - Date.parse(body.oldest_event)) / DAY;
    expect(oldestDays).toBeGreaterThan(99);
    expect(oldestDays).toBeLessThan(101);
    const foreign = await h.request('GET', `/api/projects/${project}/storage/`, { key: other.key });
    expect([403, 404]).toContain(foreign.statusCode);
  });

  it('refuses periods that are not whole days between 1 and 36 500, in PostHog’s error shape', async () => {
    for (const bad of [0, -1, 1.5, 36_501, '30']) {
      const res = await patch({ events_retention_days: bad });
      expect(res.statusCode, `${bad}: ${res.body}`).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr: 'events_retention_days' });
    }
    const rec = await patch({ session_recording_retention_period: '7d' });
    expect(rec.statusCode).toBe(400);
    expect(rec.json()).toMatchObject({
      type: 'validation_error',
      attr: 'session_recording_retention_period',
    });
  });

  it('hides older events from every query at once, in this project only', async () => {
    expect(await visible(project)).toBe(3);
    const res = await patch({ events_retention_days: 30, session_recording_retention_period: '90d' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      events_retention_days: 30,
      session_recording_retention_period: '90d',
    });

    expect(await visible(project)).toBe(1);
    // However the query reaches events: a trend over all time, the events list.
    const trend = await ok(h, project, {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }],
      dateRange: { date_from: '-365d' },
      interval: 'month',
    });
    const total = (trend.results as unknown as Array<{ count: number }>)[0]?.count;
    expect(total).toBe(1);
    const list = await h.request('GET', `/api/projects/${project}/events/?limit=100`);
    expect(list.statusCode).toBe(200);
    expect((list.json() as { results: unknown[] }).results).toHaveLength(1);

    expect(await visible(other.projectId, other.key)).toBe(3);
    // Still stored until the job runs.
    expect(await stored(project)).toBe(3);
  });

  it('deletes them from the engine, leaves other projects untouched, and is idempotent', async () => {
    const pass = await runRetentionPass(h.deps, { wait: true });
    expect(pass.deleted).toEqual(
      expect.arrayContaining([expect.objectContaining({ teamId: project, table: 'events', rows: 2 })]),
    );
    expect(pass.deleted.every((d) => d.teamId === project)).toBe(true);
    expect(await stored(project)).toBe(1);
    expect(await stored(other.projectId)).toBe(3);
    // Sessions made of those events went too: only the recent one's session remains.
    const sessions = await h.stores.events.query<{ n: number }>(
      `SELECT count() AS n FROM ${h.stores.events.table('sessions')} WHERE team_id = {t:Int64} AND max_timestamp < now() - INTERVAL 30 DAY`,
      { params: { t: project } },
    );
    expect(Number(sessions[0]?.n)).toBe(0);

    expect((await runRetentionPass(h.deps, { wait: true })).deleted).toEqual([]);
  });

  it('keeps everything again once the period is cleared (nothing deleted comes back)', async () => {
    const res = await patch({ events_retention_days: null });
    expect(res.statusCode).toBe(200);
    expect(res.json().events_retention_days).toBeNull();
    await capture(h, h.boot.project_api_key, project, [ago(200)]);
    expect(await visible(project)).toBe(2);
    expect(
      (await runRetentionPass(h.deps, { wait: true })).deleted.filter((d) => d.table === 'events'),
    ).toEqual([]);
  });
});
