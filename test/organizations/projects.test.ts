import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, MEMBER } from '../../src/domain/organizations/levels.js';
import { TEAM_SETTING_DEFAULTS } from '../../src/domain/organizations/team-settings.js';
import { TEAM_TABLES } from '../../src/store/events/team-data.js';
import { DENIED, INSUFFICIENT, ISO, NOT_FOUND, UUID } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { capture } from '../helpers/query-lists.js';

const TOKEN = /^phc_[A-Za-z0-9]{30,}$/;
const PREFIXES = ['/api/projects', '/api/environments'] as const;

const FILTERS = [
  { key: 'email', value: '@posthog.com', operator: 'not_icontains', type: 'person' },
  { key: '$host', value: ['localhost:8000', '127.0.0.1'], operator: 'is_not', type: 'event' },
  { key: 'nested', value: { a: [1, 2, { b: null }], ok: true }, operator: 'exact', type: 'event' },
];

describe(`projects (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = async (
    name: string,
    extra: Record<string, unknown> = {},
    key?: string,
    org = '@current',
  ) => {
    const res = await h.request('POST', `/api/organizations/${org}/projects/`, {
      body: { name, ...extra },
      ...(key ? { key } : {}),
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  describe('create', () => {
    it('creates a project with its own token, an integer id and UTC by default', async () => {
      const res = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
        body: { name: 'Web app' },
      });
      expect(res.statusCode).toBe(201);
      const project = res.json();
      expect(project).toEqual({
        id: expect.any(Number),
        uuid: expect.stringMatching(UUID),
        organization: h.boot.organization_id,
        project_id: project.id,
        api_token: expect.stringMatching(TOKEN),
        name: 'Web app',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
        timezone: 'UTC',
        week_start_day: null,
        is_demo: false,
        anonymize_ips: false,
        session_recording_opt_in: false,
        test_account_filters: [],
        test_account_filters_default_checked: false,
        modifiers: null,
        default_modifiers: {
          personsOnEventsMode: 'person_id_override_properties_joined',
          materializationMode: 'legacy_null_as_null',
          sessionTableVersion: 'v2',
          convertToProjectTimezone: true,
          bounceRatePageViewMode: 'count_pageviews',
        },
        person_on_events_querying_enabled: false,
        access_control: false,
        ...TEAM_SETTING_DEFAULTS,
      });
      expect(Number.isInteger(project.id)).toBe(true);
      expect(project.id).not.toBe(h.boot.project_id);
      expect(project.api_token).not.toBe(h.boot.project_api_key);
      const again = await create('Web app');
      expect(again.api_token).not.toBe(project.api_token);
      expect(again.id).toBeGreaterThan(project.id);
      expect(again.uuid).not.toBe(project.uuid);
    });

    it('accepts the writable fields on create', async () => {
      const project = await create('Configured', {
        timezone: 'Europe/Berlin',
        week_start_day: 1,
        anonymize_ips: true,
        session_recording_opt_in: true,
        test_account_filters: FILTERS,
        test_account_filters_default_checked: true,
        api_token: 'phc_chosen_by_client',
        is_demo: true,
        surveys_opt_in: true,
      });
      expect(project).toMatchObject({
        name: 'Configured',
        timezone: 'Europe/Berlin',
        week_start_day: 1,
        anonymize_ips: true,
        session_recording_opt_in: true,
        test_account_filters: FILTERS,
        test_account_filters_default_checked: true,
        is_demo: true,
        surveys_opt_in: true,
      });
      expect(project.api_token).toMatch(TOKEN);
      expect(project.api_token).not.toBe('phc_chosen_by_client');
    });

    it('validates the body', async () => {
      const url = '/api/organizations/@current/projects/';
      const missing = await h.request('POST', url, { body: {} });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toEqual({
        type: 'validation_error',
        code: 'required',
        detail: 'This field is required.',
        attr: 'name',
      });
      const zone = await h.request('POST', url, { body: { name: 'x', timezone: 'Nowhere/Special' } });
      expect(zone.statusCode).toBe(400);
      expect(zone.json()).toEqual({
        type: 'validation_error',
        code: 'invalid_choice',
        detail:
          '"Nowhere/Special" is not a valid choice. Use an IANA time zone name, such as UTC, Europe/Paris or America/New_York.',
        attr: 'timezone',
      });
    });

    it('is admin only', async () => {
      const owner = await h.owner('Create levels');
      const org = owner.organizationId;
      const member = await h.user({ organizationId: org, level: MEMBER });
      const denied = await h.request('POST', `/api/organizations/${org}/projects/`, {
        key: member.key,
        body: { name: 'By member' },
      });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual(INSUFFICIENT);
      const admin = await h.user({ organizationId: org, level: ADMIN });
      const created = await create('By admin', {}, admin.key, org);
      expect(created.organization).toBe(org);
      const list = (await h.request('GET', `/api/organizations/${org}/projects/`, { key: owner.key })).json();
      expect(list.results.map((p: { name: string }) => p.name)).toEqual(['Default project', 'By admin']);
    });

    it('is 403 for a non-member and 404 for an unknown organization', async () => {
      const outsider = await h.owner('Create outsider');
      const denied = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
        key: outsider.key,
        body: { name: 'Sneaky' },
      });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual(DENIED);
      const missing = await h.request(
        'POST',
        '/api/organizations/6f0a3c3e-8a3b-4c8e-9a63-0d6d2b0f3e11/projects/',
        {
          body: { name: 'Lost' },
        },
      );
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual(NOT_FOUND);
    });
  });

  describe('retrieve and list', () => {
    it.each(PREFIXES)('retrieves through %s/{id}/ and @current', async (prefix) => {
      const byId = await h.request('GET', `${prefix}/${h.boot.project_id}/`);
      expect(byId.statusCode).toBe(200);
      expect(byId.json()).toMatchObject({
        id: h.boot.project_id,
        project_id: h.boot.project_id,
        organization: h.boot.organization_id,
        api_token: h.boot.project_api_key,
        name: 'Default project',
      });
      const current = await h.request('GET', `${prefix}/@current/`);
      expect(current.statusCode).toBe(200);
      expect(current.json()).toEqual(byId.json());
      const noSlash = await h.request('GET', `${prefix}/${h.boot.project_id}`);
      expect(noSlash.json()).toEqual(byId.json());
    });

    it('serves the same object under both prefixes', async () => {
      const project = await create('Twin');
      const a = (await h.request('GET', `/api/projects/${project.id}/`)).json();
      const b = (await h.request('GET', `/api/environments/${project.id}/`)).json();
      expect(a).toEqual(b);
      expect(a).toEqual(project);
    });

    it("lists the current organization's projects at /api/projects/", async () => {
      const owner = await h.owner('Listing org');
      const second = await create('Listing two', {}, owner.key, owner.organizationId);
      const res = await h.request('GET', '/api/projects/', { key: owner.key });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        count: 2,
        next: null,
        previous: null,
        results: [expect.objectContaining({ id: owner.projectId, name: 'Default project' }), second],
      });
      const mine = (await h.request('GET', '/api/projects/')).json();
      expect(
        mine.results.every((p: { organization: string }) => p.organization === h.boot.organization_id),
      ).toBe(true);
      expect(mine.results.map((p: { id: number }) => p.id)).not.toContain(second.id);
    });

    it("is 403 for a project in someone else's organization", async () => {
      const outsider = await h.owner('Peeker');
      for (const prefix of PREFIXES) {
        const res = await h.request('GET', `${prefix}/${h.boot.project_id}/`, { key: outsider.key });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual(DENIED);
      }
    });

    it('is 404 for an unknown project', async () => {
      for (const prefix of PREFIXES) {
        const res = await h.request('GET', `${prefix}/987654/`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual(NOT_FOUND);
      }
    });

    it('needs the project:read scope', async () => {
      const { key } = await h.user({
        organizationId: h.boot.organization_id,
        level: ADMIN,
        key: { scopes: ['organization:read'] },
      });
      const res = await h.request('GET', `/api/projects/${h.boot.project_id}/`, { key });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ ...DENIED, detail: "API key missing required scope 'project:read'" });
    });
  });

  describe('update', () => {
    it.each(PREFIXES)('patches through %s/{id}/', async (prefix) => {
      const project = await create(`Patch via ${prefix}`);
      const res = await h.request('PATCH', `${prefix}/${project.id}/`, {
        body: {
          name: '  Renamed  ',
          timezone: 'America/New_York',
          week_start_day: 0,
          anonymize_ips: true,
          session_recording_opt_in: true,
          test_account_filters_default_checked: true,
        },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        ...project,
        name: 'Renamed',
        timezone: 'America/New_York',
        week_start_day: 0,
        anonymize_ips: true,
        session_recording_opt_in: true,
        test_account_filters_default_checked: true,
        updated_at: expect.stringMatching(ISO),
      });
      const other = prefix === '/api/projects' ? '/api/environments' : '/api/projects';
      expect((await h.request('GET', `${other}/${project.id}/`)).json()).toEqual(res.json());
    });

    it('patches @current', async () => {
      const owner = await h.owner('Current patch');
      const res = await h.request('PATCH', '/api/projects/@current/', {
        key: owner.key,
        body: { name: 'Current renamed' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: owner.projectId, name: 'Current renamed' });
    });

    it('round-trips test_account_filters', async () => {
      const project = await create('Filters');
      const url = `/api/projects/${project.id}/`;
      const res = await h.request('PATCH', url, { body: { test_account_filters: FILTERS } });
      expect(res.statusCode).toBe(200);
      expect(res.json().test_account_filters).toEqual(FILTERS);
      expect((await h.request('GET', url)).json().test_account_filters).toEqual(FILTERS);
      const list = (await h.request('GET', '/api/projects/?limit=1000')).json();
      expect(list.results.find((p: { id: number }) => p.id === project.id).test_account_filters).toEqual(
        FILTERS,
      );
      const cleared = await h.request('PATCH', url, { body: { test_account_filters: [] } });
      expect(cleared.json().test_account_filters).toEqual([]);
      expect((await h.request('GET', url)).json().test_account_filters).toEqual([]);
    });

    it('sets week_start_day back to null and refuses other days', async () => {
      const project = await create('Weeks', { week_start_day: 1 });
      const url = `/api/projects/${project.id}/`;
      const bad = await h.request('PATCH', url, { body: { week_start_day: 3 } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toEqual({
        type: 'validation_error',
        code: 'invalid_choice',
        detail: '"3" is not a valid choice. Choose one of: 0, 1.',
        attr: 'week_start_day',
      });
      const cleared = await h.request('PATCH', url, { body: { week_start_day: null } });
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json().week_start_day).toBeNull();
    });

    it.each([
      ['UTC', 200],
      ['Etc/UTC', 200],
      ['Asia/Kolkata', 200],
      ['Europe/London', 200],
      ['Europe/Kyiv', 200],
      ['US/Eastern', 200],
      ['Etc/GMT+5', 200],
      ['asia/kolkata', 400],
      ['Mars/Olympus_Mons', 400],
      ['utc/nowhere', 400],
      ['', 400],
      ['+02:00', 400],
    ])('timezone %j gives %i', async (timezone, status) => {
      const project = await create(`Zone ${timezone}`);
      const res = await h.request('PATCH', `/api/projects/${project.id}/`, { body: { timezone } });
      expect(res.statusCode).toBe(status);
      if (status === 200) {
        expect(res.json().timezone).toBe(timezone);
      } else {
        expect(res.json()).toEqual({
          type: 'validation_error',
          code: 'invalid_choice',
          detail: `"${timezone}" is not a valid choice. Use an IANA time zone name, such as UTC, Europe/Paris or America/New_York.`,
          attr: 'timezone',
        });
        expect((await h.request('GET', `/api/projects/${project.id}/`)).json().timezone).toBe('UTC');
      }
    });

    it("ignores PostHog's read-only fields, even a whole object read back", async () => {
      const project = await create('Read only');
      const res = await h.request('PATCH', `/api/projects/${project.id}/`, {
        body: {
          id: 1,
          uuid: '00000000-0000-0000-0000-000000000000',
          api_token: 'phc_attacker',
          organization: '00000000-0000-0000-0000-000000000000',
          secret_api_token: 'phs_x',
          live_events_token: 'x',
          group_types: [],
          effective_membership_level: 8,
          access_control: false,
        },
      });
      expect(res.statusCode).toBe(200);
      expect({ ...res.json(), updated_at: project.updated_at }).toEqual(project);
      const back = await h.request('PATCH', `/api/projects/${project.id}/`, { body: res.json() });
      expect(back.statusCode).toBe(200);
      expect({ ...back.json(), updated_at: project.updated_at }).toEqual(project);
    });

    it('refuses a field it neither stores nor ignores, naming it, and changes nothing', async () => {
      const project = await create('Unknown fields');
      for (const body of [
        { name: 'renamed', not_a_posthog_field: 1 },
        { name: 'renamed', revenue_analytics_config: { base_currency: 'EUR' } },
        { name: 'renamed', cookieless_server_hash_mode: 2 },
      ]) {
        const res = await h.request('PATCH', `/api/projects/${project.id}/`, { body });
        expect(res.statusCode).toBe(400);
        const field = Object.keys(body)[1];
        expect(res.json()).toEqual({
          type: 'validation_error',
          code: 'unsupported_field',
          detail: 'This field is not supported.',
          attr: field,
        });
      }
      const created = await h.request('POST', '/api/organizations/@current/projects/', {
        body: { name: 'x', heatmap_opt_in: true },
      });
      expect(created.json()).toMatchObject({ code: 'unsupported_field', attr: 'heatmap_opt_in' });
      const denied = await h.request('PATCH', `/api/projects/${project.id}/`, {
        body: { access_control: true },
      });
      expect(denied.json()).toMatchObject({ code: 'invalid_input', attr: 'access_control' });
      expect((await h.request('GET', `/api/projects/${project.id}/`)).json()).toEqual(project);
    });

    it("stores and returns PostHog's plain settings, with PostHog's defaults until written", async () => {
      const project = await create('Settings');
      expect(project).toMatchObject({
        surveys_opt_in: null,
        heatmaps_opt_in: null,
        capture_dead_clicks: false,
        autocapture_opt_out: false,
        capture_console_log_opt_in: true,
        data_attributes: ['data-attr'],
        session_recording_sample_rate: null,
        session_recording_url_trigger_config: [],
        is_demo: false,
      });
      const url = `/api/projects/${project.id}/`;
      const settings = {
        surveys_opt_in: true,
        heatmaps_opt_in: true,
        capture_dead_clicks: true,
        autocapture_exceptions_opt_in: true,
        autocapture_opt_out: true,
        session_recording_minimum_duration_milliseconds: 2000,
        session_recording_linked_flag: { id: 1, key: 'beta' },
        session_recording_url_trigger_config: [{ url: '/checkout', matching: 'regex' }],
        session_recording_trigger_match_type_config: 'any',
        app_urls: ['https://shop.example'],
        recording_domains: ['https://shop.example'],
        has_completed_onboarding_for: { product_analytics: true },
        business_model: 'b2c',
        is_demo: true,
      };
      const res = await h.request('PATCH', url, {
        body: { ...settings, session_recording_sample_rate: 0.5 },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ ...settings, session_recording_sample_rate: '0.50' });
      // A later PATCH of another setting keeps these.
      await h.request('PATCH', url, { body: { inject_web_apps: true } });
      expect((await h.request('GET', url)).json()).toMatchObject({ ...settings, inject_web_apps: true });
      for (const [body, attr] of [
        [{ session_recording_sample_rate: 2 }, 'session_recording_sample_rate'],
        [
          { session_recording_minimum_duration_milliseconds: 40_000 },
          'session_recording_minimum_duration_milliseconds',
        ],
        [{ surveys_opt_in: 'yes' }, 'surveys_opt_in'],
        [{ business_model: 'b2x' }, 'business_model'],
      ] as const) {
        const bad = await h.request('PATCH', url, { body });
        expect(bad.statusCode).toBe(400);
        expect(bad.json().attr).toBe(attr);
      }
    });

    it('lets a member patch', async () => {
      const owner = await h.owner('Member patch');
      const member = await h.user({ organizationId: owner.organizationId, level: MEMBER });
      const res = await h.request('PATCH', `/api/environments/${owner.projectId}/`, {
        key: member.key,
        body: { name: 'Member renamed' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().name).toBe('Member renamed');
    });

    it('refuses a non-member, a read-only key and an unknown project', async () => {
      const outsider = await h.owner('Patch outsider');
      const denied = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        key: outsider.key,
        body: { name: 'Hijacked' },
      });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual(DENIED);
      const reader = await h.user({
        organizationId: h.boot.organization_id,
        level: ADMIN,
        key: { scopes: ['project:read'] },
      });
      const readOnly = await h.request('PATCH', `/api/projects/${h.boot.project_id}/`, {
        key: reader.key,
        body: { name: 'Read only key' },
      });
      expect(readOnly.statusCode).toBe(403);
      expect(readOnly.json()).toEqual({
        ...DENIED,
        detail: "API key missing required scope 'project:write'",
      });
      expect((await h.request('GET', `/api/projects/${h.boot.project_id}/`)).json().name).toBe(
        'Default project',
      );
      const missing = await h.request('PATCH', '/api/projects/987654/', { body: { name: 'x' } });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual(NOT_FOUND);
    });
  });

  describe('delete', () => {
    it.each(PREFIXES)('deletes through %s/{id}/, after which it is 404 everywhere', async (prefix) => {
      const project = await create(`Delete via ${prefix}`);
      const res = await h.request('DELETE', `${prefix}/${project.id}/`);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      for (const p of PREFIXES) {
        expect((await h.request('GET', `${p}/${project.id}/`)).json()).toEqual(NOT_FOUND);
        expect((await h.request('PATCH', `${p}/${project.id}/`, { body: { name: 'x' } })).statusCode).toBe(
          404,
        );
        expect((await h.request('DELETE', `${p}/${project.id}/`)).statusCode).toBe(404);
      }
      const list = (await h.request('GET', '/api/projects/?limit=1000')).json();
      expect(list.results.map((p: { id: number }) => p.id)).not.toContain(project.id);
    });

    it("removes the project's analytics rows, and only those", async () => {
      const doomed = await create('Has events');
      const kept = h.boot.project_id;
      const event = (distinct_id: string) => ({ event: 'e', distinct_id, uuid: randomUUID() });
      await capture(h, doomed.api_token, doomed.id, [event('d1'), event('d2')]);
      await capture(h, h.boot.project_api_key, kept, [event('k1')]);
      const events = h.stores.events;
      const rows = async (table: string, team: number) => {
        const out = await events.queryRows(
          `SELECT count() FROM ${events.table(table)} WHERE team_id = {team:Int64}`,
          { params: { team } },
        );
        return Number(out.rows[0]?.[0]);
      };
      const keptBefore = await rows('events', kept);
      expect(await rows('events', doomed.id)).toBe(2);
      expect(await rows('person_distinct_id2', doomed.id)).toBe(2);
      expect((await h.request('DELETE', `/api/projects/${doomed.id}/`)).statusCode).toBe(204);
      // The engine deletes in the background.
      const deadline = Date.now() + 20_000;
      for (const table of TEAM_TABLES) {
        while ((await rows(table, doomed.id)) > 0 && Date.now() < deadline) await sleep(100);
        expect(await rows(table, doomed.id), table).toBe(0);
      }
      expect(await rows('events', kept)).toBe(keptBefore);
    });

    it('never reuses a deleted project id', async () => {
      const doomed = await create('Highest id');
      expect((await h.request('DELETE', `/api/projects/${doomed.id}/`)).statusCode).toBe(204);
      const next = await create('After delete');
      expect(next.id).toBeGreaterThan(doomed.id);
      expect((await h.request('GET', `/api/projects/${doomed.id}/`)).statusCode).toBe(404);
    });

    it('refuses a member with 403, lets an admin delete', async () => {
      const owner = await h.owner('Delete levels');
      const member = await h.user({ organizationId: owner.organizationId, level: MEMBER });
      const denied = await h.request('DELETE', `/api/projects/${owner.projectId}/`, { key: member.key });
      expect(denied.statusCode).toBe(403);
      expect(denied.json()).toEqual(INSUFFICIENT);
      expect(
        (await h.request('GET', `/api/projects/${owner.projectId}/`, { key: owner.key })).statusCode,
      ).toBe(200);
      const admin = await h.user({ organizationId: owner.organizationId, level: ADMIN });
      const res = await h.request('DELETE', `/api/environments/${owner.projectId}/`, { key: admin.key });
      expect(res.statusCode).toBe(204);
    });

    it('refuses a non-member with 403', async () => {
      const outsider = await h.owner('Delete outsider');
      const res = await h.request('DELETE', `/api/projects/${h.boot.project_id}/`, { key: outsider.key });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(DENIED);
    });

    it('moves @current to the next project once the current one is deleted', async () => {
      const owner = await h.owner('Current delete');
      const second = await create('Survivor', {}, owner.key, owner.organizationId);
      expect((await h.request('GET', '/api/projects/@current/', { key: owner.key })).json().id).toBe(
        owner.projectId,
      );
      expect((await h.request('DELETE', '/api/projects/@current/', { key: owner.key })).statusCode).toBe(204);
      const current = await h.request('GET', '/api/projects/@current/', { key: owner.key });
      expect(current.statusCode).toBe(200);
      expect(current.json().id).toBe(second.id);
      const last = await h.request('DELETE', `/api/projects/${second.id}/`, { key: owner.key });
      expect(last.statusCode).toBe(204);
      const none = await h.request('GET', '/api/projects/@current/', { key: owner.key });
      expect(none.statusCode).toBe(404);
      expect(none.json()).toEqual(NOT_FOUND);
    });
  });
});
