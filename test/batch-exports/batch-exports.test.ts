import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExport } from '../../src/domain/batch-exports/service.js';
import { exportDeps } from '../../src/server/batch-exports.js';
import { findBatchExport } from '../../src/store/meta/batch-exports.js';
import { DENIED, NOT_FOUND, UUID } from '../helpers/bodies.js';
import { createDestinationDb, type DestinationDb } from '../helpers/export-destinations.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const invalid = (detail: string, attr: string | null, code = 'invalid_input') => ({
  type: 'validation_error',
  code,
  detail,
  attr,
});

describe(`batch exports: the resource (${backend})`, () => {
  let h: Harness;
  let dest: DestinationDb;
  let base: string;
  const pgDestination = () => ({ type: 'Postgres', config: { ...dest.config, table_name: 'exported' } });

  beforeAll(async () => {
    h = await startHarness({
      BATCH_EXPORTS_SCHEDULER: 'false',
      BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    dest = await createDestinationDb();
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
  });
  afterAll(async () => {
    await h?.close();
    await dest?.drop();
  });

  const create = (body: Record<string, unknown>, url = base) => h.request('POST', url, { body });

  it('creates, reads, lists, updates and soft-deletes an export', async () => {
    const res = await create({ name: 'to pg', destination: pgDestination(), interval: 'hour' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      id: expect.stringMatching(UUID),
      team_id: h.boot.project_id,
      name: 'to pg',
      model: 'events',
      interval: 'hour',
      paused: false,
      timezone: 'UTC',
      last_paused_at: null,
      start_at: null,
      end_at: null,
      latest_runs: [],
      schema: null,
      filters: null,
      destination: { type: 'Postgres', integration: null },
    });
    expect(created.destination.config).toEqual({
      host: '127.0.0.1',
      port: 5432,
      database: dest.name,
      table_name: 'exported',
    });

    const read = await h.request('GET', `${base}${created.id}/`);
    expect(read.json()).toEqual(created);
    const env = await h.request('GET', `/api/environments/${h.boot.project_id}/batch_exports/${created.id}`);
    expect(env.json()).toEqual(created);

    const list = (await h.request('GET', base)).json();
    expect(list).toMatchObject({ count: 1, next: null, previous: null });
    expect(list.results[0].id).toBe(created.id);

    const patched = await h.request('PATCH', `${base}${created.id}/`, {
      body: { name: 'renamed', destination: { config: { table_name: 'other' } } },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().name).toBe('renamed');
    expect(patched.json().destination.config.table_name).toBe('other');
    // The stored secrets survived the merge.
    const stored = await findBatchExport(h.stores.meta.db, created.id);
    expect(stored?.destinationSecrets).toMatch(/^v1\./);

    expect((await h.request('DELETE', `${base}${created.id}/`)).statusCode).toBe(204);
    expect((await h.request('GET', `${base}${created.id}/`)).json()).toEqual(NOT_FOUND);
    expect((await h.request('GET', base)).json().count).toBe(0);
  });

  it('never echoes secrets and stores them encrypted', async () => {
    const res = await create({
      name: 'secret',
      destination: { type: 'Postgres', config: { ...dest.config, password: 'hunter2-very-secret' } },
      interval: 'day',
    });
    const text = res.body;
    expect(text).not.toContain('hunter2');
    expect(res.json().destination.config).not.toHaveProperty('password');
    expect(res.json().destination.config).not.toHaveProperty('user');
    for (const url of [
      base,
      `${base}${res.json().id}/`,
      `/api/organizations/${h.boot.organization_id}/batch_exports/`,
    ]) {
      expect((await h.request('GET', url)).body).not.toContain('hunter2');
    }
    const row = await h.stores.meta.db
      .selectFrom('batch_exports')
      .selectAll()
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('hunter2');
    // HTTP tokens too.
    const http = await create({
      name: 'http',
      destination: { type: 'HTTP', config: { url: 'http://127.0.0.1:1/batch/', token: 'phc_topsecret' } },
      interval: 'hour',
    });
    if (http.statusCode === 201) expect(http.body).not.toContain('phc_topsecret');
  });

  it.each([
    [
      { destination: { type: 'Postgres', config: {} }, interval: 'hour' },
      invalid('This field is required.', 'name', 'required'),
    ],
    [{ name: 'x', interval: 'hour' }, invalid('This field is required.', 'destination', 'required')],
    [
      { name: 'x', destination: { type: 'NoOp', config: {} } },
      invalid('This field is required.', 'interval', 'required'),
    ],
    [
      { name: ' ', destination: { type: 'NoOp', config: {} }, interval: 'hour' },
      invalid('This field may not be blank.', 'name', 'blank'),
    ],
    [
      { name: 'x', destination: { type: 'NoOp', config: {} }, interval: 'monthly' },
      invalid(
        '"monthly" is not a valid choice. Choose one of: hour, day, week, every 5 minutes, every 15 minutes.',
        'interval',
        'invalid_choice',
      ),
    ],
    [
      { name: 'x', destination: { type: 'NoOp', config: {} }, interval: 'hour', model: 'cats' },
      invalid(
        '"cats" is not a valid choice. Choose one of: events, persons, sessions.',
        'model',
        'invalid_choice',
      ),
    ],
    [
      { name: 'x', destination: { type: 'Nope', config: {} }, interval: 'hour' },
      invalid(
        '"Nope" is not a valid choice. Choose one of: Postgres, S3, HTTP, NoOp.',
        'destination__type',
        'invalid_choice',
      ),
    ],
    [
      { name: 'x', destination: { type: 'Snowflake', config: {} }, interval: 'hour' },
      invalid(
        'The Snowflake destination is not supported by this server. Supported destinations: Postgres, S3, HTTP, NoOp.',
        'destination',
      ),
    ],
    [
      {
        name: 'x',
        destination: { type: 'Postgres', config: { host: 'h', database: 'd', user: 'u' } },
        interval: 'hour',
      },
      invalid("Configuration missing required field: 'password'", 'destination'),
    ],
    [
      { name: 'x', destination: { type: 'NoOp', config: { hello: 1, hello2: 2 } }, interval: 'hour' },
      invalid("Configuration has unknown field/s: 'hello', 'hello2'", 'destination'),
    ],
    [
      {
        name: 'x',
        destination: {
          type: 'Postgres',
          config: { host: 'h', database: 'd', user: 'u', password: 'p', port: 'abc' },
        },
        interval: 'hour',
      },
      invalid("Configuration has invalid type: got 'str', expected 'int'", 'destination'),
    ],
    [
      {
        name: 'x',
        destination: { type: 'Postgres', config: { host: 5, database: 'd', user: 'u', password: 'p' } },
        interval: 'hour',
      },
      invalid("Configuration has invalid type: got 'int', expected 'str'", 'destination'),
    ],
    [
      { name: 'x', destination: { type: 'NoOp', config: {} }, interval: 'hour', filters: {} },
      invalid("'filters' should be an array of filters", 'filters'),
    ],
    [
      {
        name: 'x',
        destination: { type: 'NoOp', config: {} },
        interval: 'hour',
        filters: [{ key: 'a', data_interval_start: 'x' }],
      },
      invalid(
        "'data_interval_start' and 'data_interval_end' are run attributes and not 'filters'. Trigger a backfill if you wish to manually control which periods to batch export.",
        'filters',
      ),
    ],
    [
      { name: 'x', destination: { type: 'NoOp', config: {} }, interval: 'hour', start_at: 'yesterday' },
      invalid(
        'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
        'start_at',
        'invalid',
      ),
    ],
    [
      { name: 'x', destination: { type: 'NoOp', config: {} }, interval: 'hour', timezone: 'Mars/Olympus' },
      invalid(
        '"Mars/Olympus" is not a valid choice. Use an IANA time zone name, such as UTC, Europe/Paris or America/New_York.',
        'timezone',
        'invalid_choice',
      ),
    ],
    [
      {
        name: 'x',
        destination: { type: 'NoOp', config: {} },
        interval: 'hour',
        hogql_query: 'DROP TABLE events',
      },
      invalid('Failed to parse query', 'hogql_query'),
    ],
    [
      { name: 'x', destination: { type: 'NoOp', config: {} }, interval: 'hour', paused: 'yes' },
      invalid('Must be a valid boolean.', 'paused'),
    ],
    [
      {
        name: 'x',
        destination: { type: 'HTTP', config: { url: 'http://127.0.0.1:1/batch/', token: 't' } },
        interval: 'hour',
        model: 'persons',
      },
      invalid('HTTP batch exports only support the events model', 'destination'),
    ],
  ])('refuses %j', async (body, error) => {
    const res = await create(body);
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 400, body: error });
  });

  it('coerces string booleans and ints as PostHog does, and accepts dialect_query', async () => {
    const res = await create({
      name: 'coerced',
      destination: {
        type: 'Postgres',
        config: { ...dest.config, port: '5432', has_self_signed_cert: 'False' },
      },
      interval: 'every 5 minutes',
      dialect_query: 'SELECT event FROM events',
      filters: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Firefox'] }],
      start_at: '2030-01-01T00:00:00Z',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      hogql_query: 'SELECT event FROM events',
      interval: 'every 5 minutes',
      start_at: '2030-01-01T00:00:00.000Z',
      filters: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Firefox'] }],
    });
    expect(res.json().destination.config).toMatchObject({ port: 5432, has_self_signed_cert: false });
  });

  it('refuses to change the destination type, and validates the merged config on PATCH', async () => {
    const { id } = (
      await create({ name: 'noop', destination: { type: 'NoOp', config: {} }, interval: 'hour' })
    ).json();
    const change = await h.request('PATCH', `${base}${id}/`, {
      body: { destination: { type: 'Postgres', config: {} } },
    });
    expect(change.json()).toEqual(
      invalid(
        "Cannot change destination type from 'NoOp' to 'Postgres'. Delete this batch export and create a new one with the new destination type.",
        'destination',
      ),
    );
    const bad = await h.request('PATCH', `${base}${id}/`, { body: { destination: { config: { nope: 1 } } } });
    expect(bad.json()).toEqual(invalid("Configuration has unknown field/s: 'nope'", 'destination'));
  });

  it('pauses and unpauses idempotently, at project and organization level', async () => {
    const { id } = (
      await create({ name: 'p', destination: { type: 'NoOp', config: {} }, interval: 'hour' })
    ).json();
    const org = `/api/organizations/${h.boot.organization_id}/batch_exports/`;
    // The spec's usage sends the export's fields as body: accepted and ignored.
    const pause = await h.request('POST', `${org}${id}/pause/`, {
      body: { name: 'ignored', destination: { type: 'NoOp' }, interval: 'day' },
    });
    expect({ status: pause.statusCode, body: pause.json() }).toEqual({ status: 200, body: { paused: true } });
    const first = (await h.request('GET', `${base}${id}/`)).json();
    expect(first).toMatchObject({ paused: true, name: 'p', interval: 'hour' });
    expect(first.last_paused_at).not.toBeNull();
    await h.request('POST', `${base}${id}/pause/`);
    const again = (await h.request('GET', `${base}${id}/`)).json();
    expect(again.last_paused_at).toBe(first.last_paused_at);
    expect(again.last_updated_at).toBe(first.last_updated_at);

    const unpause = await h.request('POST', `${org}${id}/unpause/`, { body: { name: 'x', backfill: false } });
    expect(unpause.json()).toEqual({ paused: false });
    const after = (await h.request('GET', `${base}${id}/`)).json();
    expect(after.paused).toBe(false);
    expect(after.last_paused_at).toBe(first.last_paused_at);
    expect((await h.request('POST', `${base}${id}/unpause/`)).json()).toEqual({ paused: false });

    const missing = await h.request('POST', `${org}00000000-0000-4000-8000-000000000000/pause/`);
    expect(missing.json()).toEqual({
      ...NOT_FOUND,
      detail: "BatchExport ID '00000000-0000-4000-8000-000000000000' not found.",
    });
  });

  it('lists across the organization, and hides other organizations and projects', async () => {
    const org = `/api/organizations/${h.boot.organization_id}/batch_exports/`;
    const second = (
      await h.request('POST', `/api/organizations/${h.boot.organization_id}/projects/`, {
        body: { name: 'second' },
      })
    ).json();
    const inSecond = (
      await create(
        { name: 'in second', destination: { type: 'NoOp', config: {} }, interval: 'hour' },
        `/api/projects/${second.id}/batch_exports/`,
      )
    ).json();
    const all = (await h.request('GET', org)).json();
    expect(all.results.map((r: { team_id: number }) => r.team_id)).toEqual(
      expect.arrayContaining([h.boot.project_id, second.id]),
    );
    expect((await h.request('GET', `${org}${inSecond.id}/`)).json().id).toBe(inSecond.id);
    // Another project of the same organization: 404, as PostHog filters by the parent.
    expect((await h.request('GET', `${base}${inSecond.id}/`)).json()).toEqual(NOT_FOUND);

    const other = await h.owner();
    const theirs = (
      await h.request('POST', `/api/projects/${other.projectId}/batch_exports/`, {
        key: other.key,
        body: { name: 'theirs', destination: { type: 'NoOp', config: {} }, interval: 'hour' },
      })
    ).json();
    expect((await h.request('GET', `${base}${theirs.id}/`)).json()).toEqual(NOT_FOUND);
    expect((await h.request('GET', `${org}${theirs.id}/`)).json()).toEqual(NOT_FOUND);
    const foreign = await h.request(
      'GET',
      `/api/organizations/${other.organizationId}/batch_exports/${theirs.id}/`,
    );
    expect({ status: foreign.statusCode, body: foreign.json() }).toEqual({ status: 403, body: DENIED });
    expect(
      (
        await h.request(
          'POST',
          `/api/organizations/${other.organizationId}/batch_exports/${theirs.id}/pause/`,
        )
      ).statusCode,
    ).toBe(403);
    expect((await h.request('GET', `/api/projects/${other.projectId}/batch_exports/`)).statusCode).toBe(403);
  });

  it('enforces scopes: read, write, and INTERNAL for destination tests', async () => {
    const reader = await h.user({
      organizationId: h.boot.organization_id,
      level: 8,
      key: { scopes: ['batch_export:read'] },
    });
    expect((await h.request('GET', base, { key: reader.key })).statusCode).toBe(200);
    const denied = await create(
      { name: 'x', destination: { type: 'NoOp', config: {} }, interval: 'hour' },
      base,
    );
    expect(denied.statusCode).toBe(201);
    const write = await h.request('POST', base, { key: reader.key, body: { name: 'x' } });
    expect(write.json().detail).toBe("API key missing required scope 'batch_export:write'");
    const test = await h.request('GET', `${base}test/?destination=Postgres`, { key: reader.key });
    expect(test.json().detail).toBe('This action does not support Personal API Key access');
  });

  it('runs the Postgres destination test steps against a real server', async () => {
    const listed = (await h.request('GET', `${base}test/?destination=Postgres`)).json();
    expect(listed.steps).toEqual([
      { name: 'Establish connection to PostgreSQL', description: expect.any(String), result: null },
      { name: 'Verify PostgreSQL schema', description: expect.any(String), result: null },
      { name: 'Verify PostgreSQL table', description: expect.any(String), result: null },
    ]);
    const step = (n: number, config: Record<string, unknown>) =>
      h.request('POST', `${base}run_test_step_new/`, {
        body: { name: 't', interval: 'hour', destination: { type: 'Postgres', config }, step: n },
      });
    for (const n of [0, 1, 2]) {
      const res = await step(n, { ...dest.config, table_name: 'probe_me' });
      expect({ status: res.statusCode, result: res.json().result }).toEqual({
        status: 200,
        result: { status: 'Passed', message: null },
      });
    }
    // The probe table was dropped again.
    expect(await dest.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'probe_me%'")).toEqual([]);
    const missingSchema = await step(1, { ...dest.config, schema: 'nowhere' });
    expect(missingSchema.json().result).toEqual({
      status: 'Failed',
      message: "Schema 'nowhere' does not exist",
    });
    const down = await step(0, { ...dest.config, port: 1 });
    expect(down.json().result.status).toBe('Failed');
    expect(down.json().result.message).toMatch(/^Could not connect to PostgreSQL at '127\.0\.0\.1'/);
    const unconfigured = await step(0, { host: '127.0.0.1', database: 'x', user: 'u' });
    expect(unconfigured.json().detail).toBe("Configuration missing required field: 'password'");
    const outOfRange = await step(7, dest.config);
    expect(outOfRange.json()).toEqual(invalid('Step 7 does not exist.', 'step'));
    expect((await step(0, dest.config)).body).not.toContain('unused');
  });

  it('refuses private destinations unless allowed', async () => {
    const strict = exportDeps(
      { ...h.config, batchExports: { ...h.config.batchExports, allowPrivateNetworks: false } },
      h.deps,
    );
    const input = { name: 'x', destination: pgDestination(), interval: 'hour' };
    await expect(createExport(strict, { id: h.boot.project_id }, input)).rejects.toMatchObject({
      status: 400,
      attr: 'destination',
      detail:
        "Destination host '127.0.0.1' is on a private network; set BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS=true to allow it",
    });
  });
});
