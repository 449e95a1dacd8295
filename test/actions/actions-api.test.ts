import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, NOT_FOUND } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({
  type: 'validation_error',
  code,
  detail,
  attr,
});

const SIGNUP_STEP = {
  event: 'signup',
  properties: [{ key: 'plan', value: 'pro', type: 'event', operator: 'exact' }],
};
const NULL_STEP = {
  event: null,
  properties: [],
  selector: null,
  tag_name: null,
  text: null,
  text_matching: null,
  href: null,
  href_matching: null,
  url: null,
  url_matching: 'contains',
};

describe(`actions resource (${backend})`, () => {
  let h: Harness;
  let clock = new Date('2026-03-01T10:00:00.000Z');
  let base: string;
  beforeAll(async () => {
    h = await startHarness({}, { now: () => clock });
    base = `/api/projects/${h.boot.project_id}/actions/`;
  });
  afterAll(async () => h?.close());

  const create = async (body: Record<string, unknown>, key?: string) => {
    clock = new Date(clock.getTime() + 1000);
    const res = await h.request('POST', base, { body, ...(key ? { key } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };

  it('creates an action with PostHog fields, defaults and normalised steps', async () => {
    const a = await create({
      name: 'Signed up (pro)',
      description: 'pro signups',
      tags: [' Growth ', 'growth', 'KPI'],
      steps: [
        SIGNUP_STEP,
        { url: '/pricing' },
        { text: 'Buy', text_matching: 'contains', selector: 'button.buy' },
      ],
    });
    expect(Object.keys(a).sort()).toEqual(
      [
        'bytecode_error',
        'created_at',
        'created_by',
        'deleted',
        'description',
        'id',
        'is_action',
        'is_calculating',
        'last_calculated_at',
        'name',
        'pinned_at',
        'post_to_slack',
        'slack_message_format',
        'steps',
        'tags',
        'team_id',
      ].sort(),
    );
    expect(a).toMatchObject({
      name: 'Signed up (pro)',
      description: 'pro signups',
      tags: ['growth', 'kpi'],
      post_to_slack: false,
      slack_message_format: '',
      deleted: false,
      is_calculating: false,
      is_action: true,
      bytecode_error: null,
      pinned_at: null,
      team_id: h.boot.project_id,
      created_at: '2026-03-01T10:00:01.000Z',
      last_calculated_at: '2026-03-01T10:00:01.000Z',
    });
    expect(a.created_by.email).toBe(h.config.adminEmail);
    expect(a.steps).toEqual([
      { ...NULL_STEP, event: 'signup', properties: SIGNUP_STEP.properties },
      { ...NULL_STEP, url: '/pricing' },
      { ...NULL_STEP, text: 'Buy', text_matching: 'contains', selector: 'button.buy' },
    ]);
    // The environments path names the same project.
    const again = await h.request('GET', `/api/environments/${h.boot.project_id}/actions/${a.id}/`);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(a);
  });

  it('lists live actions, newest first, in pages', async () => {
    const x = await create({ name: 'list x', steps: [{ event: 'x' }] });
    const y = await create({ name: 'list y', steps: [{ event: 'y' }] });
    const page = (await h.request('GET', `${base}?limit=2`)).json();
    expect(page.results.map((r: { id: number }) => r.id)).toEqual([y.id, x.id]);
    expect(page.count).toBeGreaterThanOrEqual(3);
    expect(page.next).toContain('offset=2');
    expect(page.previous).toBeNull();
  });

  it('changes fields with PATCH, deletes softly and restores', async () => {
    const a = await create({ name: 'to change', steps: [{ event: 'a' }] });
    clock = new Date(clock.getTime() + 1000);
    const patched = await h.request('PATCH', `${base}${a.id}/`, {
      body: {
        name: 'changed',
        steps: [{ event: 'b', url: 'x', url_matching: 'exact' }],
        pinned_at: '2026-03-02T00:00:00Z',
      },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      name: 'changed',
      pinned_at: '2026-03-02T00:00:00.000Z',
      created_at: a.created_at,
    });
    expect(patched.json().steps).toEqual([{ ...NULL_STEP, event: 'b', url: 'x', url_matching: 'exact' }]);
    // Untouched fields stay.
    expect((await h.request('PATCH', `${base}${a.id}/`, { body: { description: 'd' } })).json().name).toBe(
      'changed',
    );

    expect((await h.request('DELETE', `${base}${a.id}/`)).statusCode).toBe(204);
    const listed = (await h.request('GET', `${base}?limit=1000`))
      .json()
      .results.map((r: { id: number }) => r.id);
    expect(listed).not.toContain(a.id);
    const gone = (await h.request('GET', `${base}${a.id}/`)).json();
    expect(gone.deleted).toBe(true);
    // A deleted action's name is free again.
    await create({ name: 'changed', steps: [] });
    // Restoring it now collides with the new one.
    const restore = await h.request('PATCH', `${base}${a.id}/`, { body: { deleted: false } });
    expect(restore.json()).toMatchObject({ attr: 'name', code: 'unique' });
    const renamed = await h.request('PATCH', `${base}${a.id}/`, {
      body: { deleted: false, name: 'changed again' },
    });
    expect(renamed.json()).toMatchObject({ deleted: false, name: 'changed again' });
  });

  it('validates in PostHog error shape', async () => {
    const post = (body: unknown) => h.request('POST', base, { body });
    await create({ name: 'unique one', steps: [] });
    const dup = (await post({ name: 'unique one' })).json();
    expect(dup).toMatchObject({ type: 'validation_error', code: 'unique', attr: 'name' });
    expect(dup.detail).toMatch(/^This project already has an action with this name, ID \d+$/);
    expect((await post({ name: 'm', steps: [{ url: 'x', url_matching: 'starts' }] })).json()).toEqual(
      invalid(
        '"starts" is not a valid choice. Choose one of: contains, regex, exact.',
        'steps__0__url_matching',
        'invalid_choice',
      ),
    );
    expect((await post({ name: 'm', steps: [{}, { event: 5 }] })).json()).toEqual(
      invalid('Not a valid string.', 'steps__1__event', 'invalid'),
    );
    expect((await post({ name: 'm', steps: { event: 'x' } })).json()).toMatchObject({
      attr: 'steps',
      code: 'not_a_list',
    });
    expect((await post({ name: 'm', steps: 'bad' })).json()).toEqual(
      invalid('Expected a list of items but got type "str".', 'steps', 'not_a_list'),
    );
    expect((await post({ name: 'm', steps: ['x'] })).json()).toMatchObject({
      attr: 'steps__0__non_field_errors',
    });
    const badProps = (
      await post({ name: 'm', steps: [{ properties: [{ key: 'a', operator: 'nope' }] }] })
    ).json();
    expect(badProps).toMatchObject({ type: 'validation_error', attr: 'steps__0__properties' });
    const badSelector = (await post({ name: 'm', steps: [{ selector: 'div ~ a' }] })).json();
    expect(badSelector).toMatchObject({ type: 'validation_error', attr: 'steps__0__selector' });
    const badRegex = (await post({ name: 'm', steps: [{ url: '(', url_matching: 'regex' }] })).json();
    expect(badRegex).toMatchObject({ type: 'validation_error', attr: 'steps__0__url' });
    expect((await post({ name: 'x'.repeat(401) })).json()).toMatchObject({
      attr: 'name',
      code: 'max_length',
    });
    expect((await post({ name: 'm', post_to_slack: 'yes' })).json()).toMatchObject({ attr: 'post_to_slack' });
    expect((await post({ name: 'm', pinned_at: 'soon' })).json()).toMatchObject({
      attr: 'pinned_at',
      code: 'invalid',
    });
  });

  it('answers 404 for unknown, malformed and other projects’ ids', async () => {
    const project = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
      body: { name: 'Second' },
    });
    expect(project.statusCode).toBe(201);
    const second = project.json().id;
    const elsewhere = await h.request('POST', `/api/projects/${second}/actions/`, {
      body: { name: 'elsewhere', steps: [{ event: 'e' }] },
    });
    expect(elsewhere.statusCode).toBe(201);
    const id = elsewhere.json().id;
    expect((await h.request('GET', `${base}${id}/`)).json()).toEqual(NOT_FOUND);
    expect((await h.request('PATCH', `${base}${id}/`, { body: { name: 'hijack' } })).json()).toEqual(
      NOT_FOUND,
    );
    expect((await h.request('DELETE', `${base}${id}/`)).json()).toEqual(NOT_FOUND);
    expect((await h.request('GET', `/api/projects/${second}/actions/${id}/`)).json().name).toBe('elsewhere');
    expect((await h.request('GET', `${base}999999/`)).json()).toEqual(NOT_FOUND);
    expect((await h.request('GET', `${base}abc/`)).json()).toEqual(NOT_FOUND);
    const names = (await h.request('GET', `${base}?limit=1000`))
      .json()
      .results.map((r: { name: string }) => r.name);
    expect(names).not.toContain('elsewhere');
    const outsider = await h.owner('Outsider org');
    expect((await h.request('GET', base, { key: outsider.key })).statusCode).toBe(403);
  });

  it('asks for the action scopes', async () => {
    const reader = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['action:read'] } });
    expect((await h.request('GET', base, { key: reader.key })).statusCode).toBe(200);
    const denied = await h.request('POST', base, { key: reader.key, body: { name: 'nope' } });
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ detail: "API key missing required scope 'action:write'" });
    const writer = await h.user({
      organizationId: h.boot.organization_id,
      key: { scopes: ['action:write'] },
    });
    const made = await create({ name: 'by writer', steps: [] }, writer.key);
    expect((await h.request('GET', `${base}${made.id}/`, { key: writer.key })).statusCode).toBe(200);
    const other = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['query:read'] } });
    expect((await h.request('GET', base, { key: other.key })).json()).toMatchObject({
      detail: "API key missing required scope 'action:read'",
    });
    expect((await h.request('GET', base, { key: null })).statusCode).toBe(401);
    expect(made.created_at).toMatch(ISO);
  });
});
