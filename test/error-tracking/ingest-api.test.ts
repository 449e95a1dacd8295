import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * Error tracking end to end: posthog-node's `captureException` (the real client) over loopback,
 * grouped into issues at ingestion; the issues API; and exception lists that are not ones.
 */
describe(`error tracking ingestion and issues API (${backend})`, () => {
  let h: Harness;
  let base: string;
  let issues: string;

  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    issues = `/api/environments/${h.boot.project_id}/error_tracking/issues/`;
  });
  afterAll(async () => {
    await h?.close();
  });

  async function hogql(query: string): Promise<unknown[][]> {
    const res = await h.request('POST', `/api/projects/${h.boot.project_id}/query/`, {
      body: { query: { kind: 'HogQLQuery', query } },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().results;
  }

  async function capture(events: object[]) {
    const res = await fetch(`${base}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: h.boot.project_api_key, batch: events }),
    });
    expect(res.status).toBe(200);
  }

  const exception = (type: string, value: string, fn: string, extra: object = {}) => ({
    event: '$exception',
    distinct_id: 'raw-user',
    properties: {
      $exception_list: [
        {
          type,
          value,
          mechanism: { handled: false, type: 'onerror' },
          stacktrace: {
            type: 'raw',
            frames: [
              { platform: 'node:javascript', function: fn, filename: '/srv/app.js', lineno: 3, in_app: true },
            ],
          },
        },
      ],
      ...extra,
    },
  });

  function loadUser(id: number): never {
    throw new TypeError(`user ${id} has no profile`);
  }
  function saveUser(): never {
    throw new RangeError('too many saves');
  }
  const thrown = (f: () => never): Error => {
    try {
      f();
    } catch (e) {
      return e as Error;
    }
    throw new Error('unreachable');
  };

  it("groups posthog-node's captureException: a repeat together, a different error apart", async () => {
    const ph = new PostHog(h.boot.project_api_key, { host: base, flushAt: 50, flushInterval: 0 });
    ph.captureException(
      thrown(() => loadUser(1)),
      'node-user',
    );
    ph.captureException(
      thrown(() => loadUser(2)),
      'node-user',
    );
    ph.captureException(thrown(saveUser), 'node-user');
    await ph.shutdown();
    const rows = await hogql(
      `select properties.$exception_issue_id, properties.$exception_types, properties.$exception_values,
              properties.$exception_functions, properties.$exception_handled, properties.$exception_fingerprint
       from events where event = '$exception' and distinct_id = 'node-user' order by timestamp`,
    );
    expect(rows).toHaveLength(3);
    // Captured in the same millisecond at times: the capture order is the message's user number.
    const byValue = (needle: string) => (rows as string[][]).find((r) => String(r[2]).includes(needle));
    const [a, b, c] = [byValue('user 1'), byValue('user 2'), byValue('too many saves')];
    expect(a?.[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(b?.[0]).toBe(a?.[0]);
    expect(c?.[0]).not.toBe(a?.[0]);
    expect(JSON.parse(String(a?.[1]))).toEqual(['TypeError']);
    expect(JSON.parse(String(b?.[2]))).toEqual(['user 2 has no profile']);
    expect(JSON.parse(String(a?.[3]))).toContain('loadUser');
    expect(String(a?.[4])).toBe('true');
    expect(a?.[5]).toMatch(/^[0-9a-f]{128}$/);

    const list = await h.request('GET', `${issues}?search=no%20profile`);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().count).toBe(1);
    const issue = list.json().results[0];
    expect(issue).toMatchObject({ id: a?.[0], status: 'active', name: 'TypeError', assignee: null });
    expect(issue.description).toBe('user 1 has no profile');
  });

  it('a client $exception_fingerprint wins; PATCH, assign, filters, projects alias', async () => {
    await capture([
      exception('Error', 'one', 'f1', { $exception_fingerprint: 'custom-group' }),
      exception('KeyError', 'two', 'f2', { $exception_fingerprint: 'custom-group' }),
    ]);
    const rows = await hogql(
      `select properties.$exception_issue_id, properties.$exception_fingerprint, properties.$exception_proposed_fingerprint
       from events where properties.$exception_fingerprint = 'custom-group'`,
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]?.[0]).toBe(rows[1]?.[0]);
    expect(rows[0]?.[2]).not.toBe(rows[1]?.[2]);
    const id = String(rows[0]?.[0]);
    const patched = await h.request('PATCH', `${issues}${id}/`, {
      body: { status: 'archived', name: 'Custom', description: 'grouped by the client' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      status: 'archived',
      name: 'Custom',
      fingerprints: ['custom-group'],
    });
    const assign = await h.request('PATCH', `${issues}${id}/assign/`, {
      body: { assignee: { type: 'user', id: 7 } },
    });
    expect(assign.statusCode, assign.body).toBe(200);
    const mine = await h.request(
      'GET',
      `/api/projects/${h.boot.project_id}/error_tracking/issues/?status=archived&assignee_user=${7}`,
    );
    expect(mine.json().results.map((i: { id: string }) => i.id)).toEqual([id]);
    const active = await h.request('GET', `${issues}?status=active`);
    expect(active.json().results.map((i: { id: string }) => i.id)).not.toContain(id);
    const bad = await h.request('PATCH', `${issues}${id}/`, { body: { status: 'gone' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ type: 'validation_error', code: 'invalid_choice', attr: 'status' });
    expect((await h.request('GET', `${issues}not-a-uuid/`)).statusCode).toBe(404);
    expect((await h.request('GET', `${issues}00000000-0000-0000-0000-000000000000/`)).statusCode).toBe(404);
  });

  it('suppressed issues drop their exceptions; resolved ones reopen when they recur', async () => {
    await capture([exception('SupError', 's', 'sup'), exception('ResError', 'r', 'res')]);
    const rows = await hogql(
      `select properties.$exception_types, properties.$exception_issue_id from events
       where event = '$exception' and distinct_id = 'raw-user' and properties.$exception_fingerprint != 'custom-group'`,
    );
    const idOf = (t: string) => String(rows.find((r) => String(r[0]).includes(t))?.[1]);
    const sup = idOf('SupError');
    const res = idOf('ResError');
    expect(
      (await h.request('PATCH', `${issues}${sup}/`, { body: { status: 'suppressed' } })).statusCode,
    ).toBe(200);
    expect((await h.request('PATCH', `${issues}${res}/`, { body: { status: 'resolved' } })).statusCode).toBe(
      200,
    );
    await capture([exception('SupError', 's2', 'sup'), exception('ResError', 'r2', 'res')]);
    const after = await hogql(`select count() from events where properties.$exception_issue_id = '${sup}'`);
    expect(Number(after[0]?.[0])).toBe(1);
    const reopened = await h.request('GET', `${issues}${res}/`);
    expect(reopened.json().status).toBe('active');
  });

  it('merges and splits issues as PostHog does', async () => {
    await capture([exception('MergeA', 'a', 'ma'), exception('MergeB', 'b', 'mb')]);
    const rows = await hogql(
      `select properties.$exception_issue_id, properties.$exception_fingerprint from events
       where properties.$exception_types like '%Merge%' order by properties.$exception_types`,
    );
    const [a, b] = rows.map((r) => ({ id: String(r[0]), fp: String(r[1]) }));
    if (!a || !b) throw new Error('no rows');
    const merged = await h.request('POST', `${issues}${a.id}/merge/`, { body: { ids: [b.id] } });
    expect(merged.statusCode, merged.body).toBe(200);
    expect((await h.request('GET', `${issues}${b.id}/`)).statusCode).toBe(404);
    const one = await h.request('GET', `${issues}${a.id}/`);
    expect([...one.json().fingerprints].sort()).toEqual([a.fp, b.fp].sort());
    // The merged fingerprint's next exception lands in the merged issue.
    await capture([exception('MergeB', 'b again', 'mb')]);
    const latest = await hogql(
      `select properties.$exception_issue_id from events where properties.$exception_values like '%b again%'`,
    );
    expect(latest[0]?.[0]).toBe(a.id);
    const split = await h.request('POST', `${issues}${a.id}/split/`, { body: { fingerprints: [b.fp] } });
    expect(split.statusCode, split.body).toBe(200);
    const [newId] = split.json().new_issue_ids;
    expect((await h.request('GET', `${issues}${newId}/`)).json().fingerprints).toEqual([b.fp]);
    const all = await h.request('POST', `${issues}${a.id}/split/`, { body: { fingerprints: [a.fp] } });
    expect(all.statusCode).toBe(400);
    const unknown = await h.request('POST', `${issues}${a.id}/merge/`, {
      body: { ids: ['00000000-0000-0000-0000-000000000000'] },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('stores a malformed exception list unprocessed, and caps 10 000 frames and huge messages', async () => {
    // Small frames: 10 000 of them stay under capture's per-event size limit.
    const frames = Array.from({ length: 10_000 }, (_, i) => ({
      platform: 'node:javascript',
      function: `f${i}`,
    }));
    await capture([
      { event: '$exception', distinct_id: 'bad', properties: { $exception_list: 'not a list' } },
      { event: '$exception', distinct_id: 'bad', properties: { $exception_list: [{ stacktrace: 5 }] } },
      {
        event: '$exception',
        distinct_id: 'deep',
        properties: {
          $exception_list: [
            { type: 'Deep', value: 'x'.repeat(300_000), stacktrace: { type: 'raw', frames } },
          ],
        },
      },
    ]);
    const bad = await hogql(
      `select properties.$cymbal_errors, properties.$exception_issue_id from events where distinct_id = 'bad'`,
    );
    expect(bad).toHaveLength(2);
    for (const r of bad) {
      expect(String(r[0])).toMatch(/exception|stacktrace/);
      expect(r[1]).toBeNull();
    }
    const deep = await hogql(
      `select length(JSONExtractArrayRaw(properties, '$exception_functions')), length(properties.$exception_values)
       from events where distinct_id = 'deep'`,
    );
    expect(Number(deep[0]?.[0])).toBe(200);
    expect(Number(deep[0]?.[1])).toBeLessThan(10_100);
  });

  it('needs error_tracking scopes and keeps projects apart', async () => {
    const other = await h.owner('Elsewhere');
    const theirs = await h.request('GET', issues, { key: other.key });
    expect(theirs.statusCode).toBe(403);
    const own = await h.request('GET', `/api/projects/${other.projectId}/error_tracking/issues/`, {
      key: other.key,
    });
    expect(own.statusCode).toBe(200);
    expect(own.json().count).toBe(0);
    const readOnly = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['error_tracking:read'] },
    });
    expect((await h.request('GET', issues, { key: readOnly.key })).statusCode).toBe(200);
    const list = await h.request('GET', issues, { key: readOnly.key });
    const id = list.json().results[0].id;
    const denied = await h.request('PATCH', `${issues}${id}/`, { key: readOnly.key, body: { name: 'x' } });
    expect(denied.statusCode).toBe(403);
  });
});
