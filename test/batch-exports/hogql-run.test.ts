import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDestinationDb, type DestinationDb } from '../helpers/export-destinations.js';
import { drain, insertArrived, schedulerFor, testClock } from '../helpers/export-fixtures.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { gzipJsonSink } from '../helpers/http-sink.js';

const U1 = '01890000-0000-7000-8000-000000000001';
const U2 = '01890000-0000-7000-8000-000000000002';
const U3 = '01890000-0000-7000-8000-000000000003';
const U4 = '01890000-0000-7000-8000-000000000004';

/**
 * Exports with a `hogql_query` run: the query is compiled for the team, cut to the run's window on
 * `inserted_at`, read in pages and written with its own typed columns to every destination.
 */
describe(`batch exports with a hogql_query (${backend})`, () => {
  const clock = testClock('2024-04-01T00:05:00Z');
  const dir = mkdtempSync(join(tmpdir(), 'burrow-hogql-s3-'));
  let h: Harness;
  let dest: DestinationDb;
  let s3server: S3rver;
  let s3: S3Client;
  let endpoint: string;
  let sink: Awaited<ReturnType<typeof gzipJsonSink>>;
  let base: string;

  beforeAll(async () => {
    s3server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: 'exports', configs: [] }],
    });
    endpoint = `http://127.0.0.1:${(await s3server.run()).port}`;
    s3 = new S3Client({
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    sink = await gzipJsonSink();
    h = await startHarness(
      {
        BATCH_EXPORTS_SCHEDULER: 'false',
        BATCH_EXPORTS_ALLOW_PRIVATE_NETWORKS: 'true',
        BATCH_EXPORTS_SETTLE_MS: '0',
        // Two rows a page: three rows take two pages, so paging is exercised.
        BATCH_EXPORTS_PAGE_ROWS: '2',
      },
      { now: clock.now },
    );
    dest = await createDestinationDb();
    base = `/api/projects/${h.boot.project_id}/batch_exports/`;
    const team = h.boot.project_id;
    await insertArrived(h, team, [
      { at: '2024-04-01T00:10:00Z', uuid: U1, event: 'signup', properties: { $browser: 'Firefox', n: 3 } },
      {
        at: '2024-04-01T00:20:00.5Z',
        uuid: U2,
        event: 'pageview',
        properties: { $browser: 'Chrome', n: 1.5 },
      },
      { at: '2024-04-01T00:30:00Z', uuid: U3, event: 'signup', properties: { n: 2 } },
      { at: '2024-04-01T00:40:00Z', uuid: U4, event: 'ignored', properties: {} },
      // The next window's, and another team's: neither is exported.
      { at: '2024-04-01T01:10:00Z', event: 'signup', properties: { $browser: 'Safari' } },
    ]);
    await insertArrived(h, team + 1000, [{ at: '2024-04-01T00:15:00Z', event: 'signup' }]);
  });
  afterAll(async () => {
    s3?.destroy();
    await h?.close();
    await dest?.drop();
    await s3server?.close();
    await sink?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Creates the export before the window ends, runs the window, returns its run. */
  async function exportWith(name: string, query: string, destination: Record<string, unknown>) {
    clock.set('2024-04-01T00:05:00Z');
    const res = await h.request('POST', base, {
      body: { name, destination, interval: 'hour', hogql_query: query },
    });
    expect(res.statusCode).toBe(201);
    clock.set('2024-04-01T01:00:01Z');
    await drain(schedulerFor(h));
    const runs = (await h.request('GET', `${base}${res.json().id}/runs/?after=2000-01-01T00:00:00Z`)).json();
    await h.request('DELETE', `${base}${res.json().id}/`);
    return runs.results[0];
  }

  const ROW_QUERY =
    "SELECT uuid, event, properties.$browser AS browser, toFloat(properties.n) AS n, timestamp, [event, distinct_id] AS pair FROM events WHERE event != 'ignored'";

  it('writes typed columns to PostgreSQL, upserting on uuid', async () => {
    const config = { ...dest.config, table_name: 'query_rows' };
    const run = await exportWith('pg', ROW_QUERY, { type: 'Postgres', config });
    expect(run).toMatchObject({ status: 'Completed', records_completed: 3, records_total_count: 3 });
    const types = await dest.query<{ column_name: string; data_type: string }>(
      "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'query_rows' ORDER BY ordinal_position",
    );
    expect(types.map((t) => [t.column_name, t.data_type])).toEqual([
      ['uuid', 'uuid'],
      ['event', 'text'],
      ['browser', 'text'],
      ['n', 'double precision'],
      ['timestamp', 'timestamp with time zone'],
      ['pair', 'jsonb'],
    ]);
    const rows = await dest.query(
      'SELECT uuid, event, browser, n, timestamp, pair FROM query_rows ORDER BY timestamp',
    );
    // distinct_id is user-{index % 3} in insertArrived.
    expect(rows).toEqual([
      {
        uuid: U1,
        event: 'signup',
        browser: 'Firefox',
        n: 3,
        timestamp: new Date('2024-04-01T00:10:00Z'),
        pair: ['signup', 'user-0'],
      },
      {
        uuid: U2,
        event: 'pageview',
        browser: 'Chrome',
        n: 1.5,
        timestamp: new Date('2024-04-01T00:20:00.5Z'),
        pair: ['pageview', 'user-1'],
      },
      {
        uuid: U3,
        event: 'signup',
        browser: null,
        n: 2,
        timestamp: new Date('2024-04-01T00:30:00Z'),
        pair: ['signup', 'user-2'],
      },
    ]);
    // Exported again into the same table: upserted on uuid, still three rows.
    await exportWith('pg again', ROW_QUERY, { type: 'Postgres', config });
    expect(await dest.query('SELECT count(*)::int AS n FROM query_rows')).toEqual([{ n: 3 }]);
  });

  async function object(prefix: string) {
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'exports', Prefix: prefix }));
    expect(listed.Contents).toHaveLength(1);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'exports', Key: listed.Contents![0]!.Key }));
    return Buffer.from(await got.Body!.transformToByteArray());
  }
  const s3config = (prefix: string, extra: Record<string, unknown> = {}) => ({
    type: 'S3',
    config: {
      bucket_name: 'exports',
      region: 'us-east-1',
      endpoint_url: endpoint,
      aws_access_key_id: 'S3RVER',
      aws_secret_access_key: 'S3RVER',
      prefix,
      ...extra,
    },
  });

  it('writes a grouped query to S3 as JSON Lines, paged over its ordered result', async () => {
    const run = await exportWith(
      'grouped',
      'SELECT event, count() AS c, max(timestamp) AS last FROM events GROUP BY event',
      s3config('grouped', { compression: 'gzip' }),
    );
    expect(run).toMatchObject({ status: 'Completed', records_completed: 3 });
    const lines = gunzipSync(await object('grouped'))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { event: 'ignored', c: 1, last: '2024-04-01T00:40:00.000000Z' },
      { event: 'pageview', c: 1, last: '2024-04-01T00:20:00.500000Z' },
      { event: 'signup', c: 2, last: '2024-04-01T00:30:00.000000Z' },
    ]);
  });

  it("applies the export's filters with the query's own WHERE, which may use its aliases", async () => {
    clock.set('2024-04-01T00:05:00Z');
    const res = await h.request('POST', base, {
      body: {
        name: 'filtered',
        destination: s3config('filtered'),
        interval: 'hour',
        hogql_query: "SELECT event AS e, properties.$browser AS b FROM events WHERE e != 'pageview'",
        filters: [{ key: '$browser', operator: 'is_set', type: 'event', value: null }],
      },
    });
    expect(res.statusCode).toBe(201);
    clock.set('2024-04-01T01:00:01Z');
    await drain(schedulerFor(h));
    const lines = (await object('filtered')).toString('utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([{ e: 'signup', b: 'Firefox' }]);
    await h.request('DELETE', `${base}${res.json().id}/`);
  });

  it('expands *, names repeated columns apart, and pages rows that arrayJoin multiplies', async () => {
    const lines = async (prefix: string, query: string) => {
      const run = await exportWith(prefix, query, s3config(prefix));
      expect(run.status).toBe('Completed');
      return (await object(prefix))
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
    };
    const [star] = await lines(
      'star',
      "SELECT *, properties.$browser AS b FROM events WHERE event = 'pageview'",
    );
    expect(Object.keys(star)).toEqual([
      'uuid',
      'event',
      'properties',
      'timestamp',
      'distinct_id',
      'elements_chain',
      'created_at',
      '$session_id',
      '$window_id',
      '$group_0',
      '$group_1',
      '$group_2',
      '$group_3',
      '$group_4',
      'b',
    ]);
    expect(star).toMatchObject({
      uuid: U2,
      event: 'pageview',
      properties: { $browser: 'Chrome', n: 1.5 },
      timestamp: '2024-04-01T00:20:00.500000Z',
      distinct_id: 'user-1',
      b: 'Chrome',
    });
    expect(
      await lines('twice', "SELECT event, properties.event FROM events WHERE distinct_id = 'user-1'"),
    ).toEqual([{ event: 'pageview', event_2: null }]);
    // Three rows per event, two rows a page: a page boundary falls inside one event's rows.
    expect(
      await lines('joined', "SELECT arrayJoin([1, 2, 3]) AS x, uuid FROM events WHERE event = 'signup'"),
    ).toEqual([
      { x: 1, uuid: U1 },
      { x: 1, uuid: U3 },
      { x: 2, uuid: U1 },
      { x: 2, uuid: U3 },
      { x: 3, uuid: U1 },
      { x: 3, uuid: U3 },
    ]);
  });

  it('writes the row query to S3 as Parquet with typed columns, with include_events', async () => {
    const run = await exportWith(
      'parquet',
      'SELECT uuid, event, toFloat(properties.n) AS n, timestamp FROM events',
      s3config('parquet', { file_format: 'Parquet', include_events: ['signup'] }),
    );
    expect(run).toMatchObject({ status: 'Completed', records_completed: 2 });
    const table = tableFromIPC(readParquet(new Uint8Array(await object('parquet'))).intoIPCStream());
    expect(table.schema.fields.map((f) => [f.name, String(f.type)])).toEqual([
      ['uuid', 'Utf8'],
      ['event', 'Utf8'],
      ['n', 'Float64'],
      ['timestamp', 'Timestamp<MICROSECOND, UTC>'],
    ]);
    expect(table.toArray().map((r) => ({ ...r.toJSON(), timestamp: Number(r.timestamp) }))).toEqual([
      { uuid: U1, event: 'signup', n: 3, timestamp: Date.parse('2024-04-01T00:10:00Z') },
      { uuid: U3, event: 'signup', n: 2, timestamp: Date.parse('2024-04-01T00:30:00Z') },
    ]);
  });

  it('posts the rows to an HTTP destination as events, other columns as properties', async () => {
    sink.posted.length = 0;
    const run = await exportWith(
      'http',
      "SELECT uuid, event, distinct_id, timestamp, properties.$browser AS browser, 1 + 1 AS two FROM events WHERE event = 'signup'",
      { type: 'HTTP', config: { url: sink.url, token: 'phc_target' } },
    );
    expect(run).toMatchObject({ status: 'Completed', records_completed: 2 });
    const batch = sink.posted.flatMap((b) => {
      expect(b).toMatchObject({ api_key: 'phc_target', historical_migration: true });
      return b.batch as unknown[];
    });
    expect(batch).toEqual([
      {
        uuid: U1,
        event: 'signup',
        distinct_id: 'user-0',
        timestamp: '2024-04-01T00:10:00.000000Z',
        properties: { browser: 'Firefox', two: 2 },
      },
      {
        uuid: U3,
        event: 'signup',
        distinct_id: 'user-2',
        timestamp: '2024-04-01T00:30:00.000000Z',
        properties: { browser: null, two: 2 },
      },
    ]);
  });

  it('fails a run at once when an HTTP export query lacks event or distinct_id', async () => {
    const run = await exportWith('http bad', 'SELECT event FROM events', {
      type: 'HTTP',
      config: { url: sink.url, token: 'phc_target' },
    });
    expect(run).toMatchObject({
      status: 'Failed',
      latest_error: 'An HTTP batch export query must select event and distinct_id',
    });
  });
});
