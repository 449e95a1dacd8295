import { describe, expect, it } from 'vitest';
import { QueryThrottledError } from '../../src/execution/errors.js';
import { QueryExecutor } from '../../src/execution/executor.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('query executor', () => {
  it('never runs more than the global limit at once, first come first served', async () => {
    const executor = new QueryExecutor({ concurrency: 2, perTeam: 100 });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const gates = Array.from({ length: 6 }, () => deferred());
    const all = gates.map((gate, i) =>
      executor.submit(i % 3, async () => {
        order.push(i);
        running++;
        peak = Math.max(peak, running);
        await gate.promise;
        running--;
        return i;
      }),
    );
    await tick();
    expect(executor.stats()).toMatchObject({ running: 2, queued: 4 });
    for (const gate of gates) {
      gate.resolve();
      await tick();
    }
    expect(await Promise.all(all)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(executor.stats()).toEqual({ running: 0, queued: 0, teams: 0 });
  });

  it('refuses a team over its limit with a 429 and Retry-After, other teams unaffected', async () => {
    const executor = new QueryExecutor({ concurrency: 1, perTeam: 2, retryAfterSeconds: 3 });
    const gate = deferred();
    const first = executor.submit(1, () => gate.promise);
    const second = executor.submit(1, async () => 'queued');
    const refused = await executor.submit(1, async () => 'never').catch((e) => e);
    expect(refused).toBeInstanceOf(QueryThrottledError);
    expect(refused.status).toBe(429);
    expect(refused.headers).toEqual({ 'Retry-After': '3' });
    expect(refused.toBody()).toEqual({
      type: 'throttled_error',
      code: 'throttled',
      detail: 'Request was throttled. Expected available in 3 seconds.',
      attr: null,
    });
    expect(() => executor.assertCanAccept(1)).toThrow(QueryThrottledError);
    const other = executor.submit(2, async () => 'other team');
    gate.resolve();
    await first;
    expect(await second).toBe('queued');
    expect(await other).toBe('other team');
    expect(() => executor.assertCanAccept(1)).not.toThrow();
  });

  it('aborting a queued task removes it at once and frees its slot; a running one sees the signal', async () => {
    const executor = new QueryExecutor({ concurrency: 1, perTeam: 2 });
    const gate = deferred();
    let seen: AbortSignal | undefined;
    const runningController = new AbortController();
    const running = executor.submit(
      1,
      (signal) => {
        seen = signal;
        return gate.promise;
      },
      { signal: runningController.signal },
    );
    const controller = new AbortController();
    let started = false;
    const queued = executor.submit(1, async () => 'ran', {
      signal: controller.signal,
      onStart: () => {
        started = true;
      },
    });
    controller.abort(new Error('cancelled while queued'));
    await expect(queued).rejects.toThrow('cancelled while queued');
    expect(started).toBe(false);
    expect(executor.stats().queued).toBe(0);
    expect(() => executor.assertCanAccept(1)).not.toThrow();
    runningController.abort(new Error('stop'));
    expect(seen?.aborted).toBe(true);
    gate.resolve();
    await running;
  });

  it('a task that throws synchronously rejects and releases its slot', async () => {
    const executor = new QueryExecutor({ concurrency: 1, perTeam: 1 });
    const boom = executor.submit(1, () => {
      throw new Error('boom');
    });
    await expect(boom).rejects.toThrow('boom');
    expect(await executor.submit(1, async () => 'next')).toBe('next');
  });

  it('one team holds at most its share; waiting teams are served in turn, not first come', async () => {
    // The old executor (one FIFO line) ran team 1's backlog before team 2's only query.
    const executor = new QueryExecutor({ concurrency: 3, perTeam: 100, share: 2 });
    const gates = new Map<string, ReturnType<typeof deferred<void>>>();
    const started: string[] = [];
    const task = (name: string) => async () => {
      started.push(name);
      const gate = deferred();
      gates.set(name, gate);
      await gate.promise;
      return name;
    };
    const all = [
      ...['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => executor.submit(1, task(n))),
      executor.submit(2, task('b1')),
      executor.submit(2, task('b2')),
      executor.submit(3, task('c1')),
    ];
    await tick();
    // Team 1 is at its share (2); the third slot goes to team 2, not to a3.
    expect(started).toEqual(['a1', 'a2', 'b1']);
    gates.get('a1')!.resolve();
    await tick();
    // Round-robin over waiting teams: team 3 (not yet served) before team 1 and team 2 again.
    expect(started).toEqual(['a1', 'a2', 'b1', 'c1']);
    gates.get('b1')!.resolve();
    await tick();
    expect(started.slice(4)).toEqual(['a3']);
    gates.get('c1')!.resolve();
    await tick();
    expect(started.slice(5)).toEqual(['b2']);
    for (const name of ['a2', 'a3', 'b2']) gates.get(name)!.resolve();
    await tick();
    expect(started.slice(6)).toEqual(['a4', 'a5']);
    for (const name of ['a4', 'a5']) gates.get(name)!.resolve();
    expect(await Promise.all(all)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2', 'c1']);
    expect(executor.stats()).toEqual({ running: 0, queued: 0, teams: 0 });
  });

  it('keeps a share below the node total, so one team never takes every slot', async () => {
    const executor = new QueryExecutor({ concurrency: 2, perTeam: 100, share: 8 });
    const gate = deferred();
    let running = 0;
    const mine = [1, 2, 3].map(() =>
      executor.submit(1, async () => {
        running++;
        await gate.promise;
      }),
    );
    await tick();
    expect(running).toBe(1);
    expect(await executor.submit(2, async () => 'other')).toBe('other');
    gate.resolve();
    await Promise.all(mine);
  });

  it('an already aborted signal is refused without queueing', async () => {
    const executor = new QueryExecutor({ concurrency: 1, perTeam: 1 });
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(executor.submit(1, async () => 'x', { signal: controller.signal })).rejects.toThrow('gone');
    expect(executor.stats()).toEqual({ running: 0, queued: 0, teams: 0 });
  });
});

describe('query configuration', () => {
  it('has defaults and refuses bad values', async () => {
    const { ConfigError, loadConfig } = await import('../../src/config.js');
    expect(loadConfig({})).toMatchObject({
      queryConcurrency: 4,
      queryTeamConcurrency: 8,
      queryCacheMaxBytes: 128 * 1024 * 1024,
    });
    expect(
      loadConfig({ QUERY_CONCURRENCY: '2', QUERY_TEAM_CONCURRENCY: '1', QUERY_CACHE_MAX_BYTES: '1048576' }),
    ).toMatchObject({ queryConcurrency: 2, queryTeamConcurrency: 1, queryCacheMaxBytes: 1048576 });
    expect(() => loadConfig({ QUERY_CONCURRENCY: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ QUERY_TEAM_CONCURRENCY: 'many' })).toThrow(ConfigError);
    expect(() => loadConfig({ QUERY_CACHE_MAX_BYTES: '1000' })).toThrow(ConfigError);
  });
});
