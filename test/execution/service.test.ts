import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { QueryCancelledError, QueryNotFoundError, QueryThrottledError } from '../../src/execution/errors.js';
import type { ExecuteQueryRequest, RunContext } from '../../src/execution/request.js';
import { createQueryRuntime, type QueryRuntime } from '../../src/execution/runtime.js';
import type { QueryService } from '../../src/execution/service.js';
import type { QueryStatus } from '../../src/execution/status.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';
import { type Bus, memoryBus, redisBus } from '../../src/store/shared/bus.js';
import { dropRedisPrefix } from '../helpers/redis-keys.js';

const REDIS_URL = process.env.REDIS_URL;
const BACKENDS = REDIS_URL ? (['memory', 'redis'] as const) : (['memory'] as const);
const TEAM = { id: 1, timezone: 'UTC' };

let events: EventsStore;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'burrow-qsvc-'));
  events = await openEventsStore({ dataDir, database: 'burrow_qsvc' });
});
afterAll(async () => {
  await events?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

const abortable = (promise: Promise<unknown>, signal: AbortSignal) =>
  new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    promise.then(resolve, reject);
  });

async function until<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

let prefixes = 0;
interface Node {
  runtime: QueryRuntime;
  service: QueryService;
  close(): Promise<void>;
}

async function startNode(
  backend: 'memory' | 'redis',
  now: () => Date,
  options: { prefix?: string; concurrency?: number; perTeam?: number; bus?: Bus } = {},
): Promise<Node> {
  const prefix = options.prefix ?? `burrow-qsvc-${process.pid}-${prefixes++}:`;
  const bus = options.bus ?? (backend === 'redis' ? await redisBus(REDIS_URL!, prefix) : memoryBus());
  const runtime = await createQueryRuntime({
    config: {
      redisUrl: backend === 'redis' ? REDIS_URL : undefined,
      redisKeyPrefix: prefix,
      queryConcurrency: options.concurrency ?? 4,
      queryTeamConcurrency: options.perTeam ?? 8,
      queryCacheMaxBytes: 16 * 1024 * 1024,
    },
    events,
    bus,
    now,
    progressIntervalMs: 50,
  });
  return {
    runtime,
    service: runtime.service,
    async close() {
      await runtime.close();
      if (!options.bus) await bus.close();
      if (backend === 'redis') await dropRedisPrefix(REDIS_URL!, prefix);
    },
  };
}

/** A runner on the real engine that counts its calls. */
function engineRunner(sql = 'SELECT count() AS c FROM numbers(10)') {
  const calls: RunContext[] = [];
  return {
    calls,
    run: async (ctx: RunContext) => {
      calls.push(ctx);
      const rows = await events.query<{ c: number }>(sql, { marker: ctx.marker, signal: ctx.signal });
      return { results: rows.map((r) => [r.c]), columns: ['c'] };
    },
  };
}

/** A runner that waits for `gate` (or its signal). */
function gatedRunner() {
  const gate = deferred();
  const calls: RunContext[] = [];
  return {
    gate,
    calls,
    run: async (ctx: RunContext) => {
      calls.push(ctx);
      await abortable(gate.promise, ctx.signal);
      return { results: [[calls.length]], columns: ['n'] };
    },
  };
}

const HEAVY = 'SELECT sum(cityHash64(number)) AS c FROM numbers(100000000000)';

async function settle(service: QueryService, teamId: number, id: string): Promise<QueryStatus> {
  return until(async () => {
    const { body } = await service.getStatus(teamId, id);
    return body.query_status.complete ? body.query_status : null;
  });
}

describe.each(BACKENDS)('query service on %s', (backend) => {
  let clock: Date;
  const now = () => clock;
  let node: Node;
  const request = <R extends object>(
    run: (ctx: RunContext) => Promise<R>,
    extra: Partial<ExecuteQueryRequest<R>> = {},
  ): ExecuteQueryRequest<R> => ({
    team: TEAM,
    query: { kind: 'HogQLQuery', query: `select ${prefixes}` },
    run,
    ...extra,
  });

  beforeEach(async () => {
    clock = new Date('2024-06-01T12:00:00Z');
    await node?.close();
    node = await startNode(backend, now);
  });
  afterAll(async () => {
    await node?.close();
  });

  it('blocking: calculates on a miss, serves a fresh hit, recalculates once stale', async () => {
    const runner = engineRunner();
    const req = request(runner.run);
    const miss = await node.service.executeQuery(req);
    expect(miss.kind).toBe('result');
    expect(miss.httpStatus).toBe(200);
    expect(miss.body).toMatchObject({
      results: [[10]],
      columns: ['c'],
      is_cached: false,
      last_refresh: '2024-06-01T12:00:00Z',
      next_allowed_client_refresh: '2024-06-01T12:01:00Z',
      cache_target_age: '2024-06-01T12:05:00Z', // minute interval: no date range
      timezone: 'UTC',
      query_status: null,
    });
    expect(miss.body).toHaveProperty('cache_key', expect.stringMatching(/^cache_/));

    clock = new Date('2024-06-01T12:05:00Z');
    const hit = await node.service.executeQuery(req);
    expect(hit.body).toMatchObject({ is_cached: true, last_refresh: '2024-06-01T12:00:00Z' });
    expect(runner.calls).toHaveLength(1);

    clock = new Date('2024-06-01T12:05:01Z');
    const stale = await node.service.executeQuery(req);
    expect(stale.body).toMatchObject({ is_cached: false, last_refresh: '2024-06-01T12:05:01Z' });
    expect(runner.calls).toHaveLength(2);
  });

  it('staleness hints: day target age for HogQL, date_to in the past never stale', async () => {
    const runner = engineRunner();
    const hinted = request(runner.run, {
      query: { kind: 'TrendsQuery', n: 1 },
      staleness: { interval: 'day', dateTo: new Date('2024-05-01T00:00:00Z'), targetAgeInterval: 'day' },
    });
    const first = await node.service.executeQuery(hinted);
    expect(first.body).toMatchObject({ cache_target_age: '2024-06-01T18:00:00Z' });
    clock = new Date('2024-06-03T12:00:00Z'); // far past the 6 h threshold, within the cache's 3 days
    expect((await node.service.executeQuery(hinted)).body).toMatchObject({ is_cached: true });
    expect(runner.calls).toHaveLength(1);
  });

  it('force_blocking always calculates; force_cache never does', async () => {
    const runner = engineRunner();
    const cacheOnly = await node.service.executeQuery(request(runner.run, { mode: 'force_cache' }));
    expect(cacheOnly).toMatchObject({ kind: 'cache_miss', httpStatus: 200, body: { query_status: null } });
    expect(runner.calls).toHaveLength(0);
    await node.service.executeQuery(request(runner.run, { refresh: true }));
    await node.service.executeQuery(request(runner.run, { refresh: 'force_blocking' }));
    expect(runner.calls).toHaveLength(2);
    clock = new Date('2024-06-02T12:00:00Z'); // long stale
    const served = await node.service.executeQuery(request(runner.run, { mode: 'force_cache' }));
    expect(served).toMatchObject({ kind: 'result', body: { is_cached: true } });
    expect(runner.calls).toHaveLength(2);
    // force_cache as the body's refresh never calculates either; a missing refresh is blocking.
    clock = new Date('2024-06-03T12:00:00Z');
    await node.service.executeQuery(request(runner.run, { refresh: 'force_cache' }));
    expect(runner.calls).toHaveLength(2);
    await node.service.executeQuery(request(runner.run, {}));
    expect(runner.calls).toHaveLength(3);
  });

  it('force_cache on a miss reports a background calculation of the same key, without starting one', async () => {
    const runner = gatedRunner();
    const started = await node.service.executeQuery(request(runner.run, { refresh: 'async' }));
    const id = (started.body as { query_status: QueryStatus }).query_status.id;
    const miss = await node.service.executeQuery(request(runner.run, { refresh: 'force_cache' }));
    expect(miss).toMatchObject({ kind: 'cache_miss', httpStatus: 202, body: { query_status: { id } } });
    expect(Object.keys(miss.body).sort()).toEqual(['cache_key', 'query_status']);
    runner.gate.resolve();
    await settle(node.service, 1, id);
    expect(runner.calls).toHaveLength(1);
    const served = await node.service.executeQuery(request(runner.run, { refresh: 'force_cache' }));
    expect(served).toMatchObject({ kind: 'result', body: { is_cached: true, query_status: null } });
  });

  it('async: a miss answers 202 with a status, the status completes with the full response', async () => {
    const runner = engineRunner();
    const req = request(runner.run, {
      refresh: 'async',
      clientQueryId: 'async-miss',
      insightId: 7,
      labels: ['x'],
    });
    const started = await node.service.executeQuery(req);
    expect(started.kind).toBe('cache_miss');
    expect(started.httpStatus).toBe(202);
    const status = (started.body as { query_status: QueryStatus }).query_status;
    expect(status).toMatchObject({
      id: 'async-miss',
      team_id: 1,
      query_async: true,
      complete: false,
      error: false,
      error_message: null,
      results: null,
      start_time: '2024-06-01T12:00:00Z',
      expiration_time: '2024-06-01T12:20:00Z',
      insight_id: 7,
      dashboard_id: null,
      labels: ['x'],
      query_progress: null,
    });
    expect(status.task_id).toEqual(expect.any(String));
    const done = await settle(node.service, 1, 'async-miss');
    expect(done).toMatchObject({ complete: true, error: false, pickup_time: '2024-06-01T12:00:00Z' });
    expect(done.end_time).toBe('2024-06-01T12:00:00Z');
    expect(done.results).toMatchObject({
      results: [[10]],
      is_cached: false,
      cache_key: (started.body as { cache_key: string }).cache_key,
    });
    expect((await node.service.getStatus(1, 'async-miss')).httpStatus).toBe(200);

    const hit = await node.service.executeQuery(req);
    expect(hit).toMatchObject({
      kind: 'result',
      httpStatus: 200,
      body: { is_cached: true, query_status: null },
    });
    expect(runner.calls).toHaveLength(1);
  });

  it('async on a stale hit answers the cached result with the status of a refresh (202)', async () => {
    const runner = engineRunner();
    await node.service.executeQuery(request(runner.run));
    clock = new Date('2024-06-01T12:06:00Z');
    const stale = await node.service.executeQuery(
      request(runner.run, { refresh: 'async', clientQueryId: 'refresh-1' }),
    );
    expect(stale.kind).toBe('result');
    expect(stale.httpStatus).toBe(202);
    expect(stale.body).toMatchObject({ is_cached: true, last_refresh: '2024-06-01T12:00:00Z' });
    expect((stale.body as { query_status: QueryStatus }).query_status).toMatchObject({
      id: 'refresh-1',
      complete: false,
    });
    await settle(node.service, 1, 'refresh-1');
    expect((await node.service.executeQuery(request(runner.run))).body).toMatchObject({
      is_cached: true,
      last_refresh: '2024-06-01T12:06:00Z',
    });
  });

  it('lazy_async refreshes only beyond the lazy threshold; async_except_on_cache_miss blocks on a miss', async () => {
    const runner = engineRunner();
    const miss = await node.service.executeQuery(
      request(runner.run, { refresh: 'async_except_on_cache_miss' }),
    );
    expect(miss.body).toMatchObject({ is_cached: false });
    clock = new Date('2024-06-01T12:10:00Z'); // stale by 5 min, fresh by 15 min
    const somewhat = await node.service.executeQuery(
      request(runner.run, { refresh: 'lazy_async', clientQueryId: 'l1' }),
    );
    expect(somewhat).toMatchObject({ httpStatus: 200, body: { is_cached: true, query_status: null } });
    expect(runner.calls).toHaveLength(1);
    clock = new Date('2024-06-01T12:16:00Z');
    const stale = await node.service.executeQuery(
      request(runner.run, { refresh: 'lazy_async', clientQueryId: 'l2' }),
    );
    expect(stale).toMatchObject({ httpStatus: 202, body: { is_cached: true } });
    await settle(node.service, 1, 'l2');
    expect(runner.calls).toHaveLength(2);
    const lazyMiss = await node.service.executeQuery(
      request(runner.run, {
        query: { kind: 'HogQLQuery', query: 'other' },
        refresh: 'lazy_async',
        clientQueryId: 'l3',
      }),
    );
    expect(lazyMiss).toMatchObject({ kind: 'cache_miss', httpStatus: 202 });
    await settle(node.service, 1, 'l3');
  });

  it('force_async answers only the status, even on a fresh hit', async () => {
    const runner = engineRunner();
    await node.service.executeQuery(request(runner.run));
    const outcome = await node.service.executeQuery(
      request(runner.run, { refresh: 'force_async', clientQueryId: 'fa' }),
    );
    expect(outcome.kind).toBe('status');
    expect(outcome.httpStatus).toBe(202);
    expect(Object.keys(outcome.body)).toEqual(['query_status']);
    await settle(node.service, 1, 'fa');
    expect(runner.calls).toHaveLength(2);
  });

  it('identical queries in flight run once', async () => {
    const runner = gatedRunner();
    const all = [1, 2, 3].map((i) =>
      node.service.executeQuery(request(runner.run, { clientQueryId: `same-${i}` })),
    );
    await until(async () => runner.calls.length === 1);
    runner.gate.resolve();
    const results = await Promise.all(all);
    expect(runner.calls).toHaveLength(1);
    expect(new Set(results.map((r) => (r.body as { last_refresh: string }).last_refresh)).size).toBe(1);
  });

  it('a cached answer carries the status of a calculation still running under the same id', async () => {
    const fast = engineRunner();
    await node.service.executeQuery(request(fast.run));
    const slow = gatedRunner();
    const forced = await node.service.executeQuery(
      request(slow.run, { refresh: 'force_async', clientQueryId: 'busy' }),
    );
    expect(forced.httpStatus).toBe(202);
    const cached = await node.service.executeQuery(request(fast.run, { clientQueryId: 'busy' }));
    expect(cached).toMatchObject({ kind: 'result', httpStatus: 202, body: { is_cached: true } });
    expect((cached.body as { query_status: QueryStatus }).query_status).toMatchObject({
      id: 'busy',
      complete: false,
    });
    slow.gate.resolve();
    await settle(node.service, 1, 'busy');
  });

  it('errors: blocking throws; async keeps only exposed messages (400), hides others (500)', async () => {
    const exposed = Object.assign(new Error('Unable to resolve field: nope'), { exposed: true });
    await expect(
      node.service.executeQuery(
        request(async () => {
          throw exposed;
        }),
      ),
    ).rejects.toBe(exposed);
    await node.service.executeQuery(
      request(
        async () => {
          throw exposed;
        },
        { refresh: 'force_async', clientQueryId: 'bad', query: { q: 'bad' } },
      ),
    );
    expect(await settle(node.service, 1, 'bad')).toMatchObject({
      error: true,
      error_message: 'Unable to resolve field: nope',
      results: null,
    });
    expect((await node.service.getStatus(1, 'bad')).httpStatus).toBe(400);
    await node.service.executeQuery(
      request(
        async () => {
          throw new Error('internal detail: password=hunter2');
        },
        { refresh: 'force_async', clientQueryId: 'worse', query: { q: 'worse' } },
      ),
    );
    expect(await settle(node.service, 1, 'worse')).toMatchObject({ error: true, error_message: null });
    expect((await node.service.getStatus(1, 'worse')).httpStatus).toBe(500);
  });

  it('a result carrying an error is answered but not cached', async () => {
    let calls = 0;
    const run = async () => {
      calls++;
      return { results: [], error: 'debug: something' };
    };
    await node.service.executeQuery(request(run, { query: { q: 'debug' } }));
    const again = await node.service.executeQuery(request(run, { query: { q: 'debug' } }));
    expect(again.body).toMatchObject({ is_cached: false });
    expect(calls).toBe(2);
  });

  it('statuses are per team and expire after 20 minutes', async () => {
    const runner = engineRunner();
    await node.service.executeQuery(request(runner.run, { refresh: 'force_async', clientQueryId: 'mine' }));
    await settle(node.service, 1, 'mine');
    await expect(node.service.getStatus(2, 'mine')).rejects.toBeInstanceOf(QueryNotFoundError);
    await expect(node.service.cancelQuery(2, 'mine')).rejects.toBeInstanceOf(QueryNotFoundError);
    await expect(node.service.getStatus(1, 'nope')).rejects.toMatchObject({ status: 404 });
    clock = new Date('2024-06-01T12:20:01Z');
    await expect(node.service.getStatus(1, 'mine')).rejects.toBeInstanceOf(QueryNotFoundError);
  });

  it('cancel: the status says cancelled (400), a second cancel says already complete', async () => {
    const runner = gatedRunner();
    await node.service.executeQuery(request(runner.run, { refresh: 'force_async', clientQueryId: 'c1' }));
    await until(async () => runner.calls.length === 1);
    expect(await node.service.cancelQuery(1, 'c1')).toEqual({ message: 'Cancelled query on clickhouse' });
    const status = await settle(node.service, 1, 'c1');
    expect(status).toMatchObject({ complete: true, error: true, error_message: 'Query was cancelled.' });
    expect(runner.calls[0]!.signal.aborted).toBe(true);
    expect((await node.service.getStatus(1, 'c1')).httpStatus).toBe(400);
    expect(await node.service.cancelQuery(1, 'c1')).toEqual({ message: 'Query already complete' });
    await expect(node.service.cancelQuery(1, 'never-seen')).rejects.toBeInstanceOf(QueryNotFoundError);
  });

  it('cancel reaches a blocking query by its client id', async () => {
    const runner = gatedRunner();
    const blocking = node.service.executeQuery(request(runner.run, { clientQueryId: 'blk' }));
    await until(async () => runner.calls.length === 1);
    await expect(node.service.getStatus(1, 'blk')).rejects.toBeInstanceOf(QueryNotFoundError); // no status for blocking
    expect(await node.service.cancelQuery(1, 'blk')).toEqual({ message: 'Cancelled query on clickhouse' });
    await expect(blocking).rejects.toBeInstanceOf(QueryCancelledError);
    await expect(node.service.cancelQuery(1, 'blk')).rejects.toBeInstanceOf(QueryNotFoundError);
  });

  it('over the per-team limit: 429; a stale hit is still served, without a refresh', async () => {
    await node.close();
    node = await startNode(backend, now, { perTeam: 1 });
    const fast = engineRunner();
    await node.service.executeQuery(request(fast.run, { query: { q: 'cached' } }));
    const slow = gatedRunner();
    await node.service.executeQuery(
      request(slow.run, { refresh: 'force_async', clientQueryId: 'hog', query: { q: 1 } }),
    );
    const refused = await node.service
      .executeQuery(request(slow.run, { refresh: 'force_async', query: { q: 2 } }))
      .catch((e) => e);
    expect(refused).toBeInstanceOf(QueryThrottledError);
    expect(refused).toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
    await expect(node.service.executeQuery(request(slow.run, { query: { q: 3 } }))).rejects.toBeInstanceOf(
      QueryThrottledError,
    );
    // Another team is not affected.
    const other = await node.service.executeQuery(request(fast.run, { team: { id: 2, timezone: 'UTC' } }));
    expect(other.httpStatus).toBe(200);
    clock = new Date('2024-06-01T12:06:00Z');
    const stale = await node.service.executeQuery(
      request(fast.run, { refresh: 'async', query: { q: 'cached' } }),
    );
    expect(stale).toMatchObject({ httpStatus: 200, body: { is_cached: true, query_status: null } });
    slow.gate.resolve();
    await settle(node.service, 1, 'hog');
  });

  it('dequeue_only removes a queued query but leaves a running one alone', async () => {
    await node.close();
    node = await startNode(backend, now, { concurrency: 1 });
    const first = gatedRunner();
    const second = gatedRunner();
    await node.service.executeQuery(
      request(first.run, { refresh: 'force_async', clientQueryId: 'q-run', query: { q: 1 } }),
    );
    await until(async () => first.calls.length === 1);
    await node.service.executeQuery(
      request(second.run, { refresh: 'force_async', clientQueryId: 'q-wait', query: { q: 2 } }),
    );
    expect(await node.service.cancelQuery(1, 'q-run', { dequeueOnly: true })).toEqual({
      message: 'Only tried to dequeue, not cancelling query on clickhouse',
    });
    await node.service.cancelQuery(1, 'q-wait', { dequeueOnly: true });
    expect(await settle(node.service, 1, 'q-wait')).toMatchObject({
      error: true,
      error_message: 'Query was cancelled.',
    });
    expect(second.calls).toHaveLength(0);
    expect((await node.service.getStatus(1, 'q-run')).body.query_status.complete).toBe(false);
    first.gate.resolve();
    expect(await settle(node.service, 1, 'q-run')).toMatchObject({ error: false });
  });

  it('cancelling a heavy engine query stops the engine: cancelled status, gone from system.processes', async () => {
    let marker = '';
    const run = async (ctx: RunContext) => {
      marker = ctx.marker;
      const rows = await events.query(HEAVY, {
        marker: ctx.marker,
        signal: ctx.signal,
        settings: { max_threads: 1 },
      });
      return { results: rows };
    };
    await node.service.executeQuery(
      request(run, { refresh: 'force_async', clientQueryId: 'heavy', query: { heavy: 1 } }),
    );
    const processes = await until(async () => {
      const running = marker ? await events.running(marker) : [];
      return running.length > 0 ? running : null;
    });
    expect(marker).toBe('burrow_1_heavy');
    expect(processes[0]).toMatchObject({ marker: 'burrow_1_heavy' });
    const progress = await until(async () => {
      const { httpStatus, body } = await node.service.getStatus(1, 'heavy', { showProgress: true });
      expect(httpStatus).toBe(202);
      return body.query_status.query_progress?.rows_read ? body.query_status.query_progress : null;
    });
    expect(progress.rows_read).toBeGreaterThan(0);
    expect((await node.service.getStatus(1, 'heavy')).body.query_status.query_progress).toBeNull();

    const busyStart = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 500));
    const busy = process.cpuUsage(busyStart);
    const cancelledAt = Date.now();
    await node.service.cancelQuery(1, 'heavy');
    const status = await settle(node.service, 1, 'heavy');
    expect(status).toMatchObject({ error: true, error_message: 'Query was cancelled.' });
    await until(async () => (await events.running(marker)).length === 0, 5_000);
    const cpuBefore = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 1_000));
    const cpu = process.cpuUsage(cpuBefore);
    console.log(
      `[${backend}] heavy query gone from system.processes ${Date.now() - cancelledAt - 1_000} ms after cancel; ` +
        `process CPU: ${((2 * (busy.user + busy.system)) / 1e6).toFixed(2)} s/s while running, ` +
        `${((cpu.user + cpu.system) / 1e6).toFixed(2)} s in the second after`,
    );
    expect((await events.query<{ c: number }>('SELECT 1 AS c'))[0]!.c).toBe(1); // the engine is free again
  });

  it('a blocking engine query is killed when its caller goes away', async () => {
    const controller = new AbortController();
    let marker = '';
    const run = async (ctx: RunContext) => {
      marker = ctx.marker;
      return {
        results: await events.query(HEAVY, {
          marker: ctx.marker,
          signal: ctx.signal,
          settings: { max_threads: 1 },
        }),
      };
    };
    const pending = node.service.executeQuery(
      request(run, { clientQueryId: 'gone', signal: controller.signal, query: { heavy: 2 } }),
    );
    await until(async () => marker !== '' && (await events.running(marker)).length > 0);
    controller.abort(new QueryCancelledError());
    await expect(pending).rejects.toBeInstanceOf(ApiError);
    await until(async () => (await events.running(marker)).length === 0, 5_000);
  });
});

describe.skipIf(!REDIS_URL)('two nodes sharing Redis', () => {
  let clock = new Date('2024-06-01T12:00:00Z');
  const now = () => clock;
  let a: Node;
  let b: Node;
  const prefix = `burrow-qsvc-2n-${process.pid}:`;
  beforeAll(async () => {
    a = await startNode('redis', now, { prefix });
    b = await startNode('redis', now, { prefix });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  beforeEach(() => {
    clock = new Date('2024-06-01T12:00:00Z');
  });

  it('a query started on A is seen and cancelled from B; A stops the engine work', async () => {
    let marker = '';
    const run = async (ctx: RunContext) => {
      marker = ctx.marker;
      return {
        results: await events.query(HEAVY, {
          marker: ctx.marker,
          signal: ctx.signal,
          settings: { max_threads: 1 },
        }),
      };
    };
    const started = await a.service.executeQuery({
      team: TEAM,
      query: { heavy: 'two-nodes' },
      refresh: 'force_async',
      clientQueryId: 'across',
      run,
    });
    expect(started.httpStatus).toBe(202);
    await until(async () => marker !== '' && (await events.running(marker)).length > 0);
    expect((await b.service.getStatus(1, 'across')).httpStatus).toBe(202);
    expect(await b.service.cancelQuery(1, 'across')).toEqual({ message: 'Cancelled query on clickhouse' });
    await until(async () => (await events.running(marker)).length === 0, 5_000);
    const [onA, onB] = await Promise.all([settle(a.service, 1, 'across'), settle(b.service, 1, 'across')]);
    expect(onA).toEqual(onB);
    expect(onB).toMatchObject({ error: true, error_message: 'Query was cancelled.' });
  });

  it('identical queries on two nodes run once; the second node reads the first one’s result', async () => {
    const runner = gatedRunner();
    const query = { kind: 'HogQLQuery', query: 'select shared' };
    const onA = a.service.executeQuery({ team: TEAM, query, run: runner.run });
    await until(async () => runner.calls.length === 1);
    const onB = b.service.executeQuery({ team: TEAM, query, run: runner.run });
    await new Promise((r) => setTimeout(r, 100));
    runner.gate.resolve();
    const [ra, rb] = await Promise.all([onA, onB]);
    expect(runner.calls).toHaveLength(1);
    expect(rb.body).toEqual(ra.body);
  });

  it('a cached result written by A is served by B', async () => {
    const runner = engineRunner();
    const query = { kind: 'HogQLQuery', query: 'select cached across' };
    await a.service.executeQuery({ team: TEAM, query, run: runner.run });
    const onB = await b.service.executeQuery({ team: TEAM, query, run: runner.run });
    expect(onB.body).toMatchObject({ is_cached: true });
    expect(runner.calls).toHaveLength(1);
  });
});
