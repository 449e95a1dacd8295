import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_FOUND } from '../helpers/bodies.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({
  type: 'validation_error',
  code,
  detail,
  attr,
});
const EMPTY_COUNTS = {
  saved_filters: {
    count: null,
    has_more: null,
    watched_count: null,
    increased: null,
    last_refreshed_at: null,
  },
  collection: { count: null, watched_count: 0 },
};
const FILTERS = {
  date_from: '-7d',
  duration: [{ type: 'recording', key: 'duration', value: 60, operator: 'gt' }],
};

describe(`session recording playlists (${backend})`, () => {
  let h: Harness;
  let clock = new Date('2026-01-01T00:00:00.000Z');
  let base: string;
  const tick = (ms = 1000) => {
    clock = new Date(clock.getTime() + ms);
  };
  beforeAll(async () => {
    h = await startHarness({ PLAYLIST_COUNT_INTERVAL_MS: '0' }, { now: () => clock });
    base = `/api/environments/${h.boot.project_id}/session_recording_playlists/`;
  });
  afterAll(async () => {
    await h?.close();
  });

  const create = async (body: Record<string, unknown>, key?: string) => {
    tick();
    const res = await h.request('POST', base, { body, ...(key ? { key } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const patch = async (shortId: string, body: unknown, key?: string) => {
    tick();
    return h.request('PATCH', `${base}${shortId}/`, { body, ...(key ? { key } : {}) });
  };

  it('creates a collection with a generated short id, its people and empty counts', async () => {
    const p = await create({ name: ' Checkout ', description: 'the funnel', type: 'collection' });
    expect(Object.keys(p).sort()).toEqual(
      [
        'created_at',
        'created_by',
        'deleted',
        'derived_name',
        'description',
        'filters',
        'id',
        'last_modified_at',
        'last_modified_by',
        'name',
        'pinned',
        'recordings_counts',
        'short_id',
        'type',
      ].sort(),
    );
    expect(p).toMatchObject({
      name: 'Checkout',
      derived_name: null,
      description: 'the funnel',
      pinned: false,
      deleted: false,
      filters: {},
      type: 'collection',
      created_at: clock.toISOString(),
      last_modified_at: clock.toISOString(),
      recordings_counts: EMPTY_COUNTS,
    });
    expect(p.short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(p.created_by).toMatchObject({ email: 'admin@burrow.local', first_name: 'Admin' });
    expect(p.last_modified_by).toEqual(p.created_by);
    const got = await h.request('GET', `${base}${p.short_id}/`);
    expect(got.json()).toEqual(p);
    const viaProjects = await h.request(
      'GET',
      `/api/projects/${h.boot.project_id}/session_recording_playlists/${p.short_id}`,
    );
    expect(viaProjects.json()).toEqual(p);
  });

  it('creates a saved filter with validated filters', async () => {
    const p = await create({
      type: 'filters',
      derived_name: 'Long ones',
      filters: { ...FILTERS, junk: true },
    });
    expect(p.filters).toEqual(FILTERS);
    expect(p.type).toBe('filters');
    expect(p.recordings_counts).toEqual(EMPTY_COUNTS);
  });

  it('generates distinct short ids', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 25; i++) ids.add((await create({ type: 'collection', name: `bulk ${i}` })).short_id);
    expect(ids.size).toBe(25);
  });

  it.each([
    ['no type', { name: 'x' }, invalid('Must provide a valid playlist type: either filters or collection')],
    [
      'an unknown type',
      { type: 'static' },
      invalid('Must provide a valid playlist type: either filters or collection'),
    ],
    [
      'a numeric type',
      { type: 1 },
      invalid('Must provide a valid playlist type: either filters or collection'),
    ],
    [
      'a collection with filters',
      { type: 'collection', filters: FILTERS },
      invalid('You cannot create a collection with filters'),
    ],
    [
      'a saved filter without filters',
      { type: 'filters' },
      invalid('You must provide a valid filters when creating a saved filter'),
    ],
    [
      'a saved filter with empty filters',
      { type: 'filters', filters: {} },
      invalid('You must provide a valid filters when creating a saved filter'),
    ],
    [
      'a saved filter with only unknown keys',
      { type: 'filters', filters: { colour: 'red' } },
      invalid('You must provide a valid filters when creating a saved filter'),
    ],
    [
      'a too long name',
      { type: 'collection', name: 'n'.repeat(401) },
      invalid('Ensure this field has no more than 400 characters.', 'name', 'max_length'),
    ],
    [
      'a string for pinned',
      { type: 'collection', pinned: 'yes' },
      invalid('Must be a valid boolean.', 'pinned'),
    ],
    [
      'filters as a list',
      { type: 'filters', filters: [1] },
      invalid('Expected a dictionary of items but got type "list".', 'filters', 'not_a_dict'),
    ],
    [
      'null description',
      { type: 'collection', description: null },
      invalid('This field may not be null.', 'description', 'null'),
    ],
    [
      'filters that are not recording filters',
      { type: 'filters', filters: { duration: [{ type: 'recording', key: 'duration', value: 'long' }] } },
      invalid('A valid number is required.', 'filters__duration__0__value'),
    ],
    [
      'an unknown property operator',
      {
        type: 'filters',
        filters: { properties: [{ type: 'event', key: '$browser', value: 'x', operator: 'near' }] },
      },
      invalid(
        '"near" is not a valid choice. Choose one of: exact, is_not, icontains, not_icontains, regex, not_regex, gt, gte, lt, lte, is_set, is_not_set.',
        'filters__properties__0__operator',
        'invalid_choice',
      ),
    ],
  ])('refuses %s', async (_name, body, error) => {
    const before = (await h.request('GET', `${base}?limit=1`)).json().count;
    const res = await h.request('POST', base, { body });
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: error });
    expect((await h.request('GET', `${base}?limit=1`)).json().count).toBe(before);
  });

  it('refuses a body that is not an object', async () => {
    const res = await h.request('POST', base, { body: [1, 2] });
    expect(res.statusCode).toBe(400);
    expect(res.json().type).toBe('validation_error');
  });

  describe('PATCH', () => {
    it('changes only what is sent and stamps the change', async () => {
      const p = await create({ type: 'collection', name: 'a', description: 'keep me' });
      const member = await h.user({ organizationId: h.boot.organization_id });
      const res = await patch(p.short_id, { name: 'b', short_id: 'XXXXXXXX', type: 'filters' }, member.key);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        short_id: p.short_id,
        type: 'collection',
        name: 'b',
        description: 'keep me',
        created_at: p.created_at,
        created_by: p.created_by,
        last_modified_at: clock.toISOString(),
        last_modified_by: { id: member.user.id },
      });
      const pinned = await patch(p.short_id, { pinned: true });
      expect(pinned.json()).toMatchObject({ pinned: true, name: 'b', last_modified_at: clock.toISOString() });
    });

    it('keeps collections free of filters', async () => {
      const p = await create({ type: 'collection' });
      const res = await patch(p.short_id, { filters: FILTERS });
      expect(res.json()).toEqual(invalid('You cannot update a collection to add filters'));
      const ok = await patch(p.short_id, { filters: {}, deleted: true });
      expect(ok.json()).toMatchObject({ deleted: true, filters: {} });
    });

    it('never leaves a saved filter without filters, but allows other partial changes', async () => {
      const p = await create({ type: 'filters', filters: FILTERS });
      for (const filters of [{}, null]) {
        const res = await patch(p.short_id, { filters });
        expect(res.json()).toEqual(invalid('You cannot remove all filters when updating a saved filter'));
      }
      const renamed = await patch(p.short_id, { name: 'renamed' });
      expect(renamed.json()).toMatchObject({ name: 'renamed', filters: FILTERS });
      const refiltered = await patch(p.short_id, { filters: { console_logs: ['error'] } });
      expect(refiltered.json().filters).toEqual({ console_logs: ['error'] });
      const bad = await patch(p.short_id, { filters: { console_logs: ['loud'] } });
      expect(bad.json()).toEqual(
        invalid(
          '"loud" is not a valid choice. Choose one of: info, log, warn, error.',
          'filters__console_logs__0',
          'invalid_choice',
        ),
      );
    });

    it('soft-deletes and restores; DELETE is not allowed', async () => {
      const p = await create({ type: 'collection', name: 'doomed' });
      const del = await h.request('DELETE', `${base}${p.short_id}/`);
      expect(del.statusCode).toBe(405);
      expect(del.body).toBe('');
      expect(del.headers.allow).toContain('PATCH');
      expect((await h.request('GET', `${base}${p.short_id}/`)).statusCode).toBe(200);

      expect((await patch(p.short_id, { deleted: true })).json()).toMatchObject({ deleted: true });
      expect((await h.request('GET', `${base}${p.short_id}/`)).json()).toEqual(NOT_FOUND);
      const listed = (await h.request('GET', `${base}?limit=1000`))
        .json()
        .results.map((r: { short_id: string }) => r.short_id);
      expect(listed).not.toContain(p.short_id);

      const restored = await patch(p.short_id, { deleted: false });
      expect(restored.json()).toMatchObject({ deleted: false, name: 'doomed' });
      expect((await h.request('GET', `${base}${p.short_id}/`)).statusCode).toBe(200);
    });

    it('PUT behaves like PATCH; unknown ids are 404', async () => {
      const p = await create({ type: 'collection' });
      const put = await h.request('PUT', `${base}${p.short_id}/`, { body: { description: 'via put' } });
      expect(put.json()).toMatchObject({ description: 'via put' });
      expect((await patch('nope1234', { name: 'x' })).json()).toEqual(NOT_FOUND);
      expect((await h.request('GET', `${base}${'x'.repeat(40)}/`)).json()).toEqual(NOT_FOUND);
    });
  });

  describe('list', () => {
    let other: { key: string; user: { id: number } };
    const names = (res: { json(): { results: Array<{ name: string }> } }) =>
      res.json().results.map((r) => r.name);
    let start: string;
    beforeAll(async () => {
      clock = new Date('2026-06-01T00:00:00.000Z');
      start = clock.toISOString();
      other = await h.user({ organizationId: h.boot.organization_id });
      await create({ type: 'collection', name: 'L1 Alpha 100%' });
      await create({ type: 'filters', name: 'L2 beta', filters: FILTERS }, other.key);
      await create({ type: 'collection', name: 'L3 gamma', derived_name: 'ALPHA derived', pinned: true });
      await create({ type: 'filters', name: 'L4 delta', filters: FILTERS, pinned: true }, other.key);
    });
    const list = (query: string) =>
      h.request('GET', `${base}?date_from=${encodeURIComponent(start)}&${query}`);

    it('is newest-modified first, and paged', async () => {
      expect(names(await list(''))).toEqual(['L4 delta', 'L3 gamma', 'L2 beta', 'L1 Alpha 100%']);
      const page = (await list('limit=3&offset=1')).json();
      expect(page.count).toBe(4);
      expect(page.results.map((r: { name: string }) => r.name)).toEqual([
        'L3 gamma',
        'L2 beta',
        'L1 Alpha 100%',
      ]);
      expect(page.next).toBeNull();
      expect(page.previous).toContain('limit=3');
      const first = (await list('limit=2')).json();
      expect(first.next).toContain('offset=2');
      const touched = (await list(''))
        .json()
        .results.find((r: { name: string }) => r.name === 'L1 Alpha 100%');
      await patch(touched.short_id, { description: 'touched' });
      expect(names(await list('limit=1'))).toEqual(['L1 Alpha 100%']);
    });

    it('filters by creator, short id, type, pinned and search', async () => {
      expect(names(await list(`created_by=${other.user.id}&order=name`))).toEqual(['L2 beta', 'L4 delta']);
      expect(names(await list('user=true&order=name'))).toEqual(['L1 Alpha 100%', 'L3 gamma']);
      expect(names(await list('type=filters&order=name'))).toEqual(['L2 beta', 'L4 delta']);
      expect(names(await list('type=whatever'))).toHaveLength(4);
      expect(names(await list('pinned=1&order=name'))).toEqual(['L3 gamma', 'L4 delta']);
      expect(names(await list('search=alpha&order=name'))).toEqual(['L1 Alpha 100%', 'L3 gamma']);
      expect(names(await list('search=100%25'))).toEqual(['L1 Alpha 100%']);
      expect(names(await list('search=_'))).toEqual([]);
      const one = (await list('order=name&limit=1')).json().results[0];
      expect(names(await list(`short_id=${one.short_id}`))).toEqual([one.name]);
    });

    it('orders by a field and filters by modification date', async () => {
      expect(names(await list('order=name'))).toEqual(['L1 Alpha 100%', 'L2 beta', 'L3 gamma', 'L4 delta']);
      expect(names(await list('order=-created_at'))[0]).toBe('L4 delta');
      const res = await h.request(
        'GET',
        `${base}?date_from=2026-06-01T00:00:01.5Z&date_to=2026-06-01T00:00:03.5Z&order=name`,
      );
      expect(names(res)).toEqual(['L2 beta', 'L3 gamma']);
      const relative = await h.request('GET', `${base}?date_from=-1h&order=name`);
      expect(names(relative)).toContain('L1 Alpha 100%');
    });

    it('refuses bad list parameters', async () => {
      expect((await list('order=password')).json()).toEqual(
        invalid(
          '"password" is not a valid choice. Choose one of: id, short_id, name, derived_name, description, pinned, type, created_at, created_by, last_modified_at, last_modified_by.',
          'order',
          'invalid_choice',
        ),
      );
      expect((await list('created_by=me')).json()).toEqual(
        invalid('A valid integer is required.', 'created_by'),
      );
      expect((await h.request('GET', `${base}?date_from=last-week`)).json().attr).toBe('date_from');
      expect((await list('limit=0')).statusCode).toBe(400);
    });
  });

  describe('access', () => {
    it("answers 404 for another project's playlist", async () => {
      const project = await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
        body: { name: 'Second' },
      });
      expect(project.statusCode).toBe(201);
      const second = project.json().id;
      const res = await h.request('POST', `/api/environments/${second}/session_recording_playlists/`, {
        body: { type: 'collection', name: 'elsewhere' },
      });
      const shortId = res.json().short_id;
      expect((await h.request('GET', `${base}${shortId}/`)).json()).toEqual(NOT_FOUND);
      expect((await patch(shortId, { name: 'hijack' })).json()).toEqual(NOT_FOUND);
      expect((await h.request('POST', `${base}${shortId}/recordings/s1/`)).json()).toEqual(NOT_FOUND);
      const mine = (await h.request('GET', `${base}?limit=1000`))
        .json()
        .results.map((r: { name: string }) => r.name);
      expect(mine).not.toContain('elsewhere');
      const outsider = await h.owner('Outsider org');
      expect((await h.request('GET', base, { key: outsider.key })).statusCode).toBe(403);
    });

    it('asks for the playlist scopes', async () => {
      const reader = await h.user({
        organizationId: h.boot.organization_id,
        key: { scopes: ['session_recording_playlist:read'] },
      });
      expect((await h.request('GET', base, { key: reader.key })).statusCode).toBe(200);
      const denied = await h.request('POST', base, { key: reader.key, body: { type: 'collection' } });
      expect(denied.json()).toMatchObject({
        detail: "API key missing required scope 'session_recording_playlist:write'",
      });
      const other = await h.user({
        organizationId: h.boot.organization_id,
        key: { scopes: ['session_recording:read'] },
      });
      expect((await h.request('GET', base, { key: other.key })).json()).toMatchObject({
        detail: "API key missing required scope 'session_recording_playlist:read'",
      });
      expect((await h.request('GET', base, { key: null })).statusCode).toBe(401);
    });
  });

  describe('pinning', () => {
    it('pins to collections only, idempotently, and counts pins', async () => {
      const c = await create({ type: 'collection', name: 'pins' });
      const pin = (id: string) => h.request('POST', `${base}${c.short_id}/recordings/${id}/`);
      expect((await pin('sess-a')).json()).toEqual({ success: true });
      expect((await pin('sess-a')).json()).toEqual({ success: true });
      await pin('sess-b');
      let got = (await h.request('GET', `${base}${c.short_id}/`)).json();
      expect(got.recordings_counts.collection).toEqual({ count: 2, watched_count: 0 });
      expect(got.recordings_counts.saved_filters.count).toBeNull();
      const containing = (await h.request('GET', `${base}?session_recording_id=sess-b`)).json().results;
      expect(containing.map((r: { short_id: string }) => r.short_id)).toEqual([c.short_id]);

      expect((await h.request('DELETE', `${base}${c.short_id}/recordings/sess-a/`)).json()).toEqual({
        success: true,
      });
      got = (await h.request('GET', `${base}${c.short_id}/`)).json();
      expect(got.recordings_counts.collection.count).toBe(1);

      const f = await create({ type: 'filters', filters: FILTERS });
      const refused = await h.request('POST', `${base}${f.short_id}/recordings/sess-a/`);
      expect(refused.json()).toEqual(invalid("Cannot add recordings to a playlist that is type 'filters'."));
      expect((await h.request('POST', `${base}nope0000/recordings/sess-a/`)).json()).toEqual(NOT_FOUND);
    });

    it('bulk adds and removes with limits', async () => {
      const c = await create({ type: 'collection', name: 'bulk pins' });
      const bulk = (action: string, body: unknown) =>
        h.request('POST', `${base}${c.short_id}/recordings/${action}/`, { body });
      expect((await bulk('bulk_add', { session_recording_ids: ['a', 'b', 'a'] })).json()).toEqual({
        success: true,
        added_count: 2,
        total_requested: 3,
      });
      expect((await bulk('bulk_add', { session_recording_ids: ['b', 'c'] })).json()).toMatchObject({
        added_count: 1,
      });
      for (const body of [{}, { session_recording_ids: [] }, { session_recording_ids: 'a' }]) {
        expect((await bulk('bulk_add', body)).json()).toEqual(
          invalid('session_recording_ids must be provided as a non-empty array'),
        );
      }
      const many = Array.from({ length: 21 }, (_, i) => `s${i}`);
      expect((await bulk('bulk_delete', { session_recording_ids: many })).json()).toEqual(
        invalid('Cannot process more than 20 recordings at once'),
      );
      expect((await bulk('bulk_delete', { session_recording_ids: ['a', 'zzz'] })).json()).toEqual({
        success: true,
        deleted_count: 1,
        total_requested: 2,
      });
      const got = (await h.request('GET', `${base}${c.short_id}/`)).json();
      expect(got.recordings_counts.collection.count).toBe(2);
    });
  });
});
