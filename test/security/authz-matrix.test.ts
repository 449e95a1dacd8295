import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, type KeyInput } from '../../src/domain/accounts/personal-api-keys.js';
import { OWNER } from '../../src/domain/organizations/levels.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { organization } from '../helpers/org-access.js';

/**
 * The authorization matrix: every operation of the generated OpenAPI document, for every kind of
 * caller that must be refused. Routes are read from the document, so a route another change adds
 * is covered without touching this file; ids in paths are filled from the path's own words
 * (`actions/{id}` gets an action id, ...), or a random id when nothing is known of the resource.
 *
 * Two tenants: A (owner, admin, member; a second organization A2 and a second project pA2 of the
 * same owner for the restricted keys) and B (with one object of each kind it can hold).
 */

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** No credential by design: the docs, logging in, accepting an invite. */
const PUBLIC = (path: string) =>
  path === '/api/login/' || path.startsWith('/api/signup/') || path.startsWith('/api/schema');
/** Routes that need an organization admin beyond the ones whose summary says "(admin)". */
const ADMIN_ONLY_EXTRA = new Set([
  'PATCH /api/organizations/{organization_id}/members/{user__uuid}/',
  'DELETE /api/organizations/{organization_id}/members/{user__uuid}/',
]);

interface Operation {
  method: string;
  path: string;
  scope: string;
  summary: string;
}

interface Tenant {
  organizationId: string;
  projectId: number;
  /** Ids by the path word before them: `actions` → an action id, `members` → a user uuid. */
  ids: Record<string, string>;
  /** Strings that must never appear in a response to a caller outside the tenant. */
  markers: string[];
}

const ROUTE_BODY: Record<string, unknown> = {
  'PATCH /api/organizations/{organization_id}/': { name: 'renamed' },
  'POST /api/organizations/{organization_id}/projects/': { name: 'new project' },
  'POST /api/organizations/{organization_id}/domains/': { domain: 'admin-only.example' },
  'PATCH /api/organizations/{organization_id}/domains/{id}/': { jit_provisioning_enabled: false },
  'PATCH /api/organizations/{organization_id}/members/{user__uuid}/': { level: 1 },
};

function bodyFor(op: Operation): unknown {
  if (op.method === 'GET' || op.method === 'DELETE') return undefined;
  return ROUTE_BODY[`${op.method} ${op.path}`] ?? (op.path.endsWith('/bulk/') ? [] : {});
}

/** The URL of `op` in `tenant`; `objects` says whose object ids go in (default the tenant's). */
function urlFor(op: Operation, tenant: Tenant, objects: Tenant = tenant): { url: string; foreign: boolean } {
  let foreign = false;
  const words = op.path.split('/');
  const url = words
    .map((word, i) => {
      const param = /^\{(.+)\}$/.exec(word)?.[1];
      if (!param) return word;
      if (param === 'organization_id') return tenant.organizationId;
      if (param === 'project_id') return String(tenant.projectId);
      const known = objects.ids[`${words[i - 1]}`];
      if (known && objects !== tenant) foreign = true;
      return known ?? randomUUID();
    })
    .join('/');
  return { url, foreign };
}

/** A key of `scopes` that lacks what `scope` needs (null when any credential will do). */
function scopesMissing(scope: string): string[] | null {
  if (scope === 'authenticated' || scope === '') return null;
  if (scope === 'internal') return ['project:read'];
  return scope.startsWith('user:') ? ['project:read'] : ['user:read'];
}

describe(`authorization matrix over every OpenAPI operation (${backend})`, () => {
  let h: Harness;
  let ops: Operation[];
  let A: Tenant;
  let B: Tenant;
  let keys: {
    owner: string;
    member: string;
    revoked: string;
    orgRestricted: string;
    projectRestricted: string;
  };
  let bCounts: () => Promise<Record<string, number>>;
  let bBefore: Record<string, number>;
  const failures: string[] = [];

  const send = (op: Operation, url: string, key: string | null) =>
    h.request(op.method, url, { key, body: bodyFor(op) });
  /** Markers of `tenant` in a response, other than ones the request itself named (an error may echo its id). */
  const leaks = (res: LightMyRequestResponse, tenant: Tenant, url: string, markers = tenant.markers) =>
    markers.filter((m) => res.body.includes(m) && !url.includes(m));
  function expectThat(ok: boolean, what: string, op: Operation, url: string, res: LightMyRequestResponse) {
    if (!ok) failures.push(`${what}: ${op.method} ${url} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  const never500 = (op: Operation, url: string, res: LightMyRequestResponse) =>
    expectThat(res.statusCode < 500, 'never a 500', op, url, res);

  beforeAll(async () => {
    h = await startHarness({ BATCH_EXPORTS_SCHEDULER: 'false' });
    const doc = (await h.request('GET', '/api/schema/', { key: null })).json();
    ops = [];
    for (const [path, item] of Object.entries<Record<string, Record<string, unknown>>>(doc.paths)) {
      if (!path.startsWith('/api/') || PUBLIC(path)) continue;
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        ops.push({
          method: method.toUpperCase(),
          path,
          scope: String(op['x-required-scope'] ?? ''),
          summary: String(op.summary ?? ''),
        });
      }
    }

    // Tenant B, with one object of each kind.
    const b = await h.owner('TenantB-Qx7');
    const bAs = (method: string, url: string, body?: unknown) => h.request(method, url, { key: b.key, body });
    const pb = `/api/projects/${b.projectId}`;
    const action = await bAs('POST', `${pb}/actions/`, { name: 'b-action', steps: [{ event: '$pageview' }] });
    const playlist = await bAs('POST', `${pb}/session_recording_playlists/`, {
      name: 'b-playlist',
      type: 'collection',
    });
    const exp = await bAs('POST', `${pb}/batch_exports/`, {
      name: 'b-export',
      interval: 'hour',
      paused: true,
      destination: { type: 'HTTP', config: { url: 'http://8.8.8.8/batch/', token: 'phc_b' } },
    });
    const domain = await bAs('POST', `/api/organizations/${b.organizationId}/domains/`, {
      domain: 'tenant-b.example',
    });
    const invite = await bAs('POST', `/api/organizations/${b.organizationId}/invites/`, {
      target_email: 'someone@tenant-b.example',
      send_email: false,
    });
    for (const res of [action, playlist, exp, domain, invite]) expect(res.statusCode, res.body).toBe(201);
    const bKey = (await bAs('GET', '/api/personal_api_keys/@current/')).json();
    const bProject = (await bAs('GET', `${pb}/`)).json();
    B = {
      organizationId: b.organizationId,
      projectId: b.projectId,
      ids: {
        actions: String(action.json().id),
        session_recording_playlists: playlist.json().short_id,
        batch_exports: exp.json().id,
        domains: domain.json().id,
        invites: invite.json().id,
        personal_api_keys: bKey.id,
        members: b.user.uuid,
      },
      markers: [
        b.organizationId,
        bProject.api_token,
        'TenantB-Qx7',
        b.user.email,
        'b-action',
        'b-playlist',
        'b-export',
      ],
    };
    bCounts = async () => ({
      actions: (await bAs('GET', `${pb}/actions/`)).json().count,
      playlists: (await bAs('GET', `${pb}/session_recording_playlists/`)).json().count,
      exports: (await bAs('GET', `${pb}/batch_exports/`)).json().count,
      domains: (await bAs('GET', `/api/organizations/${b.organizationId}/domains/`)).json().count,
      invites: (await bAs('GET', `/api/organizations/${b.organizationId}/invites/`)).json().count,
      members: (await bAs('GET', `/api/organizations/${b.organizationId}/members/`)).json().count,
      projects: (await bAs('GET', `/api/organizations/${b.organizationId}/projects/`)).json().count,
      keys: (await bAs('GET', '/api/personal_api_keys/')).json().length,
    });
    bBefore = await bCounts();

    // Tenant A: owner, admin, member; a domain; a second organization and a second project.
    const a = await organization(h);
    const aAs = (method: string, url: string, body?: unknown) =>
      h.request(method, url, { key: a.owner.key, body });
    const aDomain = await aAs('POST', `${a.base}/domains/`, { domain: 'tenant-a.example' });
    expect(aDomain.statusCode).toBe(201);
    const aProject = (await aAs('GET', `/api/projects/${a.owner.projectId}/`)).json();
    A = {
      organizationId: a.orgId,
      projectId: a.owner.projectId,
      ids: { domains: aDomain.json().id, members: a.admin.user.uuid },
      markers: [a.orgId, aProject.api_token, aDomain.json().id],
    };
    const a2 = await aAs('POST', '/api/organizations/', { name: 'A2' });
    const pA2 = await aAs('POST', `${a.base}/projects/`, { name: 'pA2' });
    expect([a2.statusCode, pA2.statusCode]).toEqual([201, 201]);
    // A2 became the owner's current organization: @me then names it, not A.
    const mint = async (input: Partial<KeyInput>) =>
      (
        await createKey(
          h.deps,
          { user: a.owner.user, key: null },
          { label: 'matrix', scopes: ['*'], ...input },
        )
      ).value as string;
    const revoked = await mint({});
    expect((await h.request('GET', '/api/users/@me/', { key: revoked })).statusCode).toBe(200); // cached now
    const revokedId = (await h.request('GET', '/api/personal_api_keys/@current/', { key: revoked })).json()
      .id;
    expect((await aAs('DELETE', `/api/personal_api_keys/${revokedId}/`)).statusCode).toBe(204);
    keys = {
      owner: a.owner.key,
      member: a.member.key,
      revoked,
      orgRestricted: await mint({ scoped_organizations: [a2.json().id] }),
      projectRestricted: await mint({ scoped_teams: [pA2.json().id] }),
    };
  });
  afterAll(async () => h?.close());

  it('reads the operations from the OpenAPI document', () => {
    expect(ops.length).toBeGreaterThan(100);
    expect(ops.filter((o) => /\(admin\)/.test(o.summary)).length).toBeGreaterThanOrEqual(5);
  });

  it('refuses no key and a revoked key with 401 on every operation', async () => {
    for (const op of ops) {
      const { url } = urlFor(op, A);
      for (const key of [null, keys.revoked]) {
        const res = await send(op, url, key);
        expectThat(res.statusCode === 401, key ? 'revoked key → 401' : 'no key → 401', op, url, res);
      }
    }
    expect(failures).toEqual([]);
  });

  it('refuses a key without the scope with 403 on every scoped operation', async () => {
    const cache = new Map<string, string>();
    for (const op of ops) {
      const scopes = scopesMissing(op.scope);
      if (!scopes) continue;
      let key = cache.get(scopes.join());
      if (!key) {
        // An owner of A: only the scope is missing.
        key = (await h.user({ organizationId: A.organizationId, level: OWNER, key: { scopes } })).key;
        cache.set(scopes.join(), key);
      }
      const { url } = urlFor(op, A);
      const res = await send(op, url, key);
      expectThat(res.statusCode === 403, `missing scope (${op.scope}) → 403`, op, url, res);
      expectThat(leaks(res, A, url).length === 0, 'no data of A', op, url, res);
    }
    expect(failures).toEqual([]);
  });

  it("never answers 2xx or B's data to A on B's organization, project or objects", async () => {
    let mixedChecked = 0;
    for (const op of ops) {
      // B's organization/project and B's objects in the path.
      const inB = urlFor(op, B);
      const res = await send(op, inB.url, keys.owner);
      never500(op, inB.url, res);
      const named = /\{(organization_id|project_id)\}/.test(op.path);
      if (named) expectThat([403, 404].includes(res.statusCode), "B's tenant → 403/404", op, inB.url, res);
      expectThat(
        leaks(res, B, inB.url).length === 0,
        `no data of B (${leaks(res, B, inB.url)})`,
        op,
        inB.url,
        res,
      );
      // A's own organization/project, B's object ids.
      const mixed = urlFor(op, A, B);
      if (!mixed.foreign) continue;
      mixedChecked++;
      const res2 = await send(op, mixed.url, keys.owner);
      never500(op, mixed.url, res2);
      expectThat(res2.statusCode >= 400, "B's object under A → 4xx", op, mixed.url, res2);
      expectThat(
        leaks(res2, B, mixed.url).length === 0,
        `no data of B (${leaks(res2, B, mixed.url)})`,
        op,
        mixed.url,
        res2,
      );
    }
    // Every kind of B object was tried under A's ids, on each of its operations.
    expect(mixedChecked).toBeGreaterThan(40);
    // Nothing of B was changed or removed.
    expect(await bCounts()).toEqual(bBefore);
    expect(failures).toEqual([]);
  });

  it('refuses a member on every operation that needs an admin', async () => {
    const adminOnly = ops.filter(
      (op) => /\(admin\)/.test(op.summary) || ADMIN_ONLY_EXTRA.has(`${op.method} ${op.path}`),
    );
    expect(adminOnly.length).toBeGreaterThanOrEqual(7);
    for (const op of adminOnly) {
      const { url } = urlFor(op, A);
      const res = await send(op, url, keys.member);
      expectThat(res.statusCode === 403, 'member where admin is needed → 403', op, url, res);
    }
    expect(failures).toEqual([]);
  });

  it('keeps organization- and project-restricted keys out of everything else, lists included', async () => {
    for (const [name, key] of [
      ['organization-restricted', keys.orgRestricted],
      ['project-restricted', keys.projectRestricted],
    ] as const) {
      for (const op of ops) {
        const { url } = urlFor(op, A);
        const res = await send(op, url, key);
        never500(op, url, res);
        const named = /\{(organization_id|project_id)\}/.test(op.path);
        if (named)
          expectThat(res.statusCode === 403, `${name} key outside its restriction → 403`, op, url, res);
        // Routes naming no organization or project (lists, @me, keys) show nothing of A either;
        // the project-restricted key's project is in A, so only A's other project token counts.
        // A refusal may name the organization the project belongs to (PostHog's message), never more.
        const ok2xx = res.statusCode < 300;
        const outside = name === 'organization-restricted' && ok2xx ? A.markers : A.markers.slice(1, 2);
        const leaked = leaks(res, A, url, outside);
        expectThat(leaked.length === 0, `${name} key sees nothing outside (${leaked})`, op, url, res);
      }
      // `@me` names no organization or project in its path but can switch to one in its body (the
      // project-restricted key's project pA2 is in A, so only A's other project is outside it).
      const op = { method: 'PATCH', path: '/api/users/@me/', scope: 'user:write', summary: '' };
      const outside: Record<string, unknown>[] = [{ set_current_team: A.projectId }];
      if (name === 'organization-restricted') outside.push({ set_current_organization: A.organizationId });
      for (const body of outside) {
        const res = await h.request('PATCH', op.path, { key, body });
        expectThat(
          res.statusCode === 403,
          `${name} key switching outside → 403`,
          op,
          JSON.stringify(body),
          res,
        );
      }
    }
    expect(failures).toEqual([]);
  });
});
