import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_LIMITS } from '../../src/api/sharing.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { capture, otherProject, uuid } from '../helpers/query-lists.js';

/** Sharing links: read only, exactly the shared object, revocable, rate limited. */
let h: Harness;
let api: string;

const sql = { kind: 'HogQLQuery', query: "SELECT count() FROM events WHERE event = 'shared_ev'" };
const secretSql = { kind: 'HogQLQuery', query: "SELECT 'secret-insight'" };

beforeAll(async () => {
  h = await startHarness();
  api = `/api/projects/${h.boot.project_id}/`;
  await capture(h, h.boot.project_api_key, h.boot.project_id, [
    { event: 'shared_ev', distinct_id: 'a', uuid: uuid() },
    { event: 'shared_ev', distinct_id: 'b', uuid: uuid() },
  ]);
}, 60_000);
afterAll(async () => h?.close());

const anon = (path: string) => h.request('GET', path, { key: null });

async function sharedDashboard() {
  const d = (await h.request('POST', `${api}dashboards/`, { body: { name: 'Public board' } })).json();
  const shown = (
    await h.request('POST', `${api}insights/`, { body: { name: 'Shown', query: sql, dashboards: [d.id] } })
  ).json();
  await h.request('POST', `${api}insights/`, { body: { name: 'Not shared', query: secretSql } });
  await h.request('PATCH', `${api}dashboards/${d.id}/`, { body: { tiles: [{ text: { body: 'Hello' } }] } });
  return { d, shown };
}

describe('sharing links', () => {
  it('are created disabled, then open exactly the shared dashboard when enabled', async () => {
    const { d, shown } = await sharedDashboard();
    const config = (await h.request('GET', `${api}dashboards/${d.id}/sharing/`)).json();
    expect(config).toMatchObject({ enabled: false, password_required: false, settings: null });
    expect(config.access_token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect((await anon(`/shared/${config.access_token}`)).statusCode).toBe(404);

    const on = (
      await h.request('PATCH', `${api}dashboards/${d.id}/sharing/`, { body: { enabled: true } })
    ).json();
    expect(on).toMatchObject({ enabled: true, access_token: config.access_token });
    const res = await anon(`/shared/${config.access_token}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.type).toBe('dashboard');
    expect(body.dashboard).toMatchObject({
      id: d.id,
      name: 'Public board',
      is_shared: true,
      created_by: null,
    });
    const insightTile = body.dashboard.tiles.find((t: { insight: unknown }) => t.insight);
    expect(insightTile.insight).toMatchObject({
      id: shown.id,
      result: [[2]],
      created_by: null,
      dashboards: [],
    });
    expect(body.dashboard.tiles.find((t: { text: unknown }) => t.text).text).toMatchObject({
      body: 'Hello',
      created_by: null,
    });
    expect(JSON.stringify(body)).not.toContain('secret-insight');
    expect(JSON.stringify(body)).not.toContain('@example.com');
    const asJson = (await anon(`/shared/${config.access_token}.json`)).json();
    expect(asJson.dashboard.tiles.map((t: { id: number }) => t.id)).toEqual(
      body.dashboard.tiles.map((t: { id: number }) => t.id),
    );
    expect(asJson.dashboard.tiles.find((t: { insight: unknown }) => t.insight).is_cached).toBe(true);
    expect((await anon(`/embedded/${config.access_token}`)).statusCode).toBe(200);
    expect((await h.request('GET', `${api}dashboards/${d.id}/`)).json().is_shared).toBe(true);

    // The link takes nothing from the caller: no filters, no other object.
    const tampered = await anon(
      `/shared/${config.access_token}?filters_override=%7B%22date_from%22%3A%22-1d%22%7D&refresh=force_blocking`,
    );
    expect(tampered.json().dashboard.id).toBe(d.id);
    expect((await anon(`${api}insights/`)).statusCode).toBe(401);
  });

  it('are revoked by refresh and by disabling; deleted objects are gone', async () => {
    const { d } = await sharedDashboard();
    const first = (
      await h.request('PATCH', `${api}dashboards/${d.id}/sharing/`, { body: { enabled: true } })
    ).json();
    const second = (await h.request('POST', `${api}dashboards/${d.id}/sharing/refresh/`)).json();
    expect(second.access_token).not.toBe(first.access_token);
    expect((await anon(`/shared/${first.access_token}`)).statusCode).toBe(404);
    expect((await anon(`/shared/${second.access_token}`)).statusCode).toBe(200);
    await h.request('PATCH', `${api}dashboards/${d.id}/sharing/`, { body: { enabled: false } });
    expect((await anon(`/shared/${second.access_token}`)).statusCode).toBe(404);
    await h.request('PATCH', `${api}dashboards/${d.id}/sharing/`, { body: { enabled: true } });
    await h.request('DELETE', `${api}dashboards/${d.id}/`);
    expect((await anon(`/shared/${second.access_token}`)).statusCode).toBe(404);
  });

  it('hand out a new token when re-enabled: a link shared before a disable stays dead', async () => {
    const { shown } = await sharedDashboard();
    const url = `${api}insights/${shown.id}/sharing/`;
    const first = (await h.request('PATCH', url, { body: { enabled: true } })).json();
    expect((await anon(`/shared/${first.access_token}`)).statusCode).toBe(200);
    const off = (await h.request('PATCH', url, { body: { enabled: false } })).json();
    expect(off.enabled).toBe(false);
    expect(off.access_token).not.toBe(first.access_token);
    const again = (await h.request('PATCH', url, { body: { enabled: true } })).json();
    expect(again).toMatchObject({ enabled: true, access_token: off.access_token });
    expect((await anon(`/shared/${first.access_token}`)).statusCode).toBe(404);
    expect((await anon(`/shared/${again.access_token}`)).statusCode).toBe(200);
    // Saving settings of an enabled link, or enabling it twice, keeps the token.
    const same = (
      await h.request('PATCH', url, { body: { enabled: true, settings: { noHeader: true } } })
    ).json();
    expect(same.access_token).toBe(again.access_token);
  });

  it('refuse password_required (no share passwords) instead of sharing publicly', async () => {
    const { d } = await sharedDashboard();
    const url = `${api}dashboards/${d.id}/sharing/`;
    const res = await h.request('PATCH', url, { body: { enabled: true, password_required: true } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: 'validation_error',
      code: 'not_supported',
      attr: 'password_required',
    });
    // Nothing changed: the link is still off.
    const config = (await h.request('GET', url)).json();
    expect(config).toMatchObject({ enabled: false, password_required: false });
    expect((await anon(`/shared/${config.access_token}`)).statusCode).toBe(404);
    // false is what every link is, and accepted.
    const ok = await h.request('PATCH', url, { body: { enabled: true, password_required: false } });
    expect(ok.json()).toMatchObject({ enabled: true, password_required: false });
    expect((await h.request('PATCH', url, { body: { password_required: 'yes' } })).json()).toMatchObject({
      attr: 'password_required',
    });
  });

  it('share one insight and nothing of its dashboards', async () => {
    const { shown } = await sharedDashboard();
    const config = (
      await h.request('PATCH', `${api}insights/${shown.id}/sharing/`, { body: { enabled: true } })
    ).json();
    const body = (await anon(`/shared/${config.access_token}`)).json();
    expect(body.type).toBe('insight');
    expect(body.insight).toMatchObject({ id: shown.id, result: [[2]], dashboards: [], dashboard_tiles: [] });
    expect(body.dashboard).toBeUndefined();
  });

  it('refuse bad input, other projects and missing scopes', async () => {
    const { d } = await sharedDashboard();
    const other = await otherProject(h);
    const theirs = `/api/projects/${other.projectId}/dashboards/${d.id}/sharing/`;
    expect((await h.request('GET', theirs, { key: other.key })).statusCode).toBe(404);
    expect((await h.request('PATCH', theirs, { key: other.key, body: { enabled: true } })).statusCode).toBe(
      404,
    );
    expect(
      (await h.request('PATCH', `${api}dashboards/${d.id}/sharing/`, { body: { enabled: 'yes' } }))
        .statusCode,
    ).toBe(400);
    expect(
      (await h.request('PATCH', `${api}dashboards/${d.id}/sharing/`, { body: { settings: [1] } })).statusCode,
    ).toBe(400);
    expect((await h.request('GET', `${api}dashboards/999999/sharing/`)).statusCode).toBe(404);
    for (const bad of [
      'x',
      '..%2F..%2Fetc',
      'a'.repeat(90),
      '%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00',
    ])
      expect((await anon(`/shared/${bad}`)).statusCode).toBe(404);
    const editor = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['dashboard:write'] },
    });
    expect(
      (await h.request('GET', `${api}dashboards/${d.id}/sharing/`, { key: editor.key })).statusCode,
    ).toBe(403);
    const sharer = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['sharing_configuration:read'] },
    });
    expect(
      (await h.request('GET', `${api}dashboards/${d.id}/sharing/`, { key: sharer.key })).statusCode,
    ).toBe(200);
    expect(
      (
        await h.request('PATCH', `${api}dashboards/${d.id}/sharing/`, {
          key: sharer.key,
          body: { enabled: true },
        })
      ).statusCode,
    ).toBe(403);
  });

  it('are rate limited per client', async () => {
    let last = 0;
    for (let i = 0; i <= SHARED_LIMITS.perIp; i++)
      last = (await anon('/shared/notarealtokenatall0000')).statusCode;
    expect(last).toBe(429);
    const res = await anon('/shared/notarealtokenatall0000');
    expect(res.json()).toMatchObject({ type: 'throttled_error', code: 'throttled' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
