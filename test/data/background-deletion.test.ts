import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  queuePersonDeletion,
  startDeletionWorker,
} from '../../src/domain/data-lifecycle/person-deletions.js';
import { claimDeletion, getDeletion } from '../../src/store/meta/async-deletions.js';
import { type DeletionView, settledDeletions } from '../helpers/deletions.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, type RawEvent, uuid } from '../helpers/query-lists.js';
import { sendRecordings } from '../helpers/recordings.js';

/**
 * Persons' data is deleted in the background (docs/persons-and-data.md): the deletion is a row
 * with progress any node can work, taken over when its node dies, retried then marked failed, and
 * it never touches what was captured under a freed distinct id after it was asked for.
 */
let h: Harness;
let project: number;
const now = Date.now();
const ev = (event: string, distinct_id: string, properties: Record<string, unknown> = {}): RawEvent => ({
  event,
  distinct_id,
  timestamp: new Date(now - 60_000).toISOString(),
  uuid: uuid(),
  properties,
});

const count = async (table: string, where: string, teamId = project) => {
  const rows = await h.stores.events.query<{ n: number }>(
    `SELECT count() AS n FROM ${h.stores.events.table(table)} WHERE team_id = {t:Int64} AND ${where}`,
    { params: { t: teamId } },
  );
  return Number(rows[0]?.n);
};

const personOf = async (distinctId: string) => {
  const res = await h.request('GET', `/api/projects/${project}/persons/?distinct_id=${distinctId}`);
  return (res.json() as { results: Array<{ id: string; distinct_ids: string[] }> }).results[0];
};

beforeAll(async () => {
  h = await startHarness();
  project = h.boot.project_id;
  await capture(h, h.boot.project_api_key, project, [
    ev('$pageview', 'rec-1', { $session_id: 'rs-1' }),
    ev('$pageview', 'keep-1', { $session_id: 'ks-1' }),
    ev('$pageview', 'late-1', { $session_id: 'ls-1' }),
    ev('$pageview', 'crash-1', { $session_id: 'cs-1' }),
  ]);
  await sendRecordings(h, [
    { sessionId: 'rs-1', distinctId: 'rec-1', start: now - 100_000, durationMs: 5000 },
  ]);
  for (let i = 0; i < 200 && (await count('session_replay_events', "session_id = 'rs-1'")) === 0; i++)
    await new Promise((r) => setTimeout(r, 50));
});
afterAll(async () => h?.close());

describe('background person deletion', () => {
  it('delete_recordings removes only the recordings; the person and its events stay (202)', async () => {
    const person = await personOf('rec-1');
    const res = await h.request('POST', `/api/projects/${project}/persons/${person?.id}/delete_recordings/`);
    expect(res.statusCode, res.body).toBe(202);
    const [d] = await settledDeletions(h, project);
    expect(d).toMatchObject({ scope: 'recordings', status: 'done', progress: 1 });
    expect(d?.steps.map((s) => s.table)).toEqual(['session_replay_snapshots', 'session_replay_events']);
    expect(await count('session_replay_events', "session_id = 'rs-1'")).toBe(0);
    expect(await count('session_replay_snapshots', "session_id = 'rs-1'")).toBe(0);
    expect(await count('events', "distinct_id = 'rec-1'")).toBe(1);
    expect((await h.request('GET', `/api/projects/${project}/persons/${person?.id}/`)).statusCode).toBe(200);
  });

  it('delete_events removes the events and sessions but keeps the person', async () => {
    const person = await personOf('keep-1');
    const res = await h.request('POST', `/api/projects/${project}/persons/${person?.id}/delete_events/`);
    expect(res.statusCode, res.body).toBe(202);
    const all = await settledDeletions(h, project);
    expect(all[0]).toMatchObject({ scope: 'events', status: 'done', rows_deleted: 2 });
    expect(await count('events', "distinct_id = 'keep-1'")).toBe(0);
    expect(await count('sessions', "session_id = 'ks-1'")).toBe(0);
    expect((await h.request('GET', `/api/projects/${project}/persons/${person?.id}/`)).statusCode).toBe(200);
  });

  it('spares events captured after the deletion was asked for', async () => {
    const person = await personOf('late-1');
    // Queued but not woken: the server's worker only sees it at its next poll (5 s).
    const d = await queuePersonDeletion(h.deps, {
      teamId: project,
      scope: 'events',
      personIds: [person?.id as string],
      distinctIds: ['late-1'],
      userId: null,
    });
    await new Promise((r) => setTimeout(r, 20));
    await capture(h, h.boot.project_api_key, project, [ev('$pageview', 'late-1', { $session_id: 'ls-2' })]);
    const worker = startDeletionWorker(h.deps, { pollMs: 60_000, onError: () => {} });
    await worker.drain();
    await worker.stop();
    await settledDeletions(h, project);
    expect((await getDeletion(h.stores.meta.db, project, d.id))?.status).toBe('done');
    // Only what was stored before the request goes: the person is kept here, and its new event too.
    expect(await count('events', "distinct_id = 'late-1'")).toBe(1);
    expect(await count('events', "distinct_id = 'late-1' AND `$session_id` = 'ls-2'")).toBe(1);
  });

  it('is taken over when the node working on it dies (lease expired)', async () => {
    const person = await personOf('crash-1');
    const d = await queuePersonDeletion(h.deps, {
      teamId: project,
      scope: 'events',
      personIds: [person?.id as string],
      distinctIds: ['crash-1'],
      userId: null,
    });
    const past = new Date(Date.now() - 10 * 60_000).toISOString();
    // A node claims it with a lease that has already run out, and never comes back.
    const claimed = await claimDeletion(h.stores.meta.db, 'dead-node', past, past);
    expect(claimed?.id).toBe(d.id);
    const worker = startDeletionWorker(h.deps, { pollMs: 60_000, onError: () => {} });
    await worker.drain();
    await worker.stop();
    const after = await getDeletion(h.stores.meta.db, project, d.id);
    expect(after).toMatchObject({ status: 'done', attempts: 2 });
    expect(await count('events', "distinct_id = 'crash-1'")).toBe(0);
  });

  it('retries a deletion that fails, then marks it failed with the error', async () => {
    const d = await queuePersonDeletion(h.deps, {
      teamId: project,
      scope: 'events',
      personIds: ['not-a-uuid'],
      distinctIds: [],
      userId: null,
    });
    const errors: unknown[] = [];
    const worker = startDeletionWorker(h.deps, { pollMs: 60_000, onError: (e) => errors.push(e) });
    for (let i = 0; i < 6; i++) await worker.drain();
    await worker.stop();
    const after = await getDeletion(h.stores.meta.db, project, d.id);
    expect(after).toMatchObject({ status: 'failed', attempts: 5 });
    expect(after?.error).toBeTruthy();
    expect(errors.length).toBeGreaterThanOrEqual(5);
    const res = await h.request('GET', `/api/projects/${project}/data_deletions/${d.id}/`);
    expect(res.json()).toMatchObject({ status: 'failed', attempts: 5 } satisfies Partial<DeletionView>);
  });

  it('makes cached query results computed before it stale', async () => {
    await capture(h, h.boot.project_api_key, project, [
      ev('cached-ev', 'cache-1'),
      ev('cached-ev', 'cache-2'),
    ]);
    const ask = async () => {
      const res = await h.request('POST', `/api/projects/${project}/query/`, {
        body: {
          query: { kind: 'HogQLQuery', query: "SELECT count() FROM events WHERE event = 'cached-ev'" },
          refresh: 'blocking',
        },
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { results: unknown[][]; is_cached: boolean };
    };
    expect((await ask()).results).toEqual([[2]]);
    expect(await ask()).toMatchObject({ is_cached: true, results: [[2]] });
    const person = await personOf('cache-1');
    await h.request('DELETE', `/api/projects/${project}/persons/${person?.id}/?delete_events=true`);
    await settledDeletions(h, project);
    expect(await ask()).toMatchObject({ is_cached: false, results: [[1]] });
  });

  it('shows a project only its own deletions', async () => {
    const other = await otherProject(h);
    const mine = (await h.request('GET', `/api/projects/${project}/data_deletions/`)).json() as {
      count: number;
      results: DeletionView[];
    };
    expect(mine.count).toBeGreaterThan(0);
    const theirs = await h.request('GET', `/api/projects/${other.projectId}/data_deletions/`, {
      key: other.key,
    });
    expect(theirs.json()).toEqual({ count: 0, results: [] });
    const peek = await h.request(
      'GET',
      `/api/projects/${other.projectId}/data_deletions/${mine.results[0]?.id}/`,
      {
        key: other.key,
      },
    );
    expect(peek.statusCode).toBe(404);
    expect((await h.request('GET', `/api/projects/${project}/data_deletions/abc/`)).statusCode).toBe(404);
  });
});
