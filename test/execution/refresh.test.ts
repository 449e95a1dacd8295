import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.js';
import { type Action, decide, type Freshness, freshnessOf } from '../../src/execution/decide.js';
import {
  type ExecutionMode,
  executionModeFromRefresh,
  queryEndpointMode,
} from '../../src/execution/refresh.js';
import {
  cacheTargetAge,
  type Interval,
  isStale,
  nextAllowedClientRefresh,
  stalenessThreshold,
} from '../../src/execution/staleness.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('refresh value → execution mode', () => {
  it.each<[unknown, ExecutionMode]>([
    ['force_blocking', 'force_blocking'],
    ['force_async', 'force_async'],
    ['blocking', 'blocking'],
    ['async', 'async'],
    ['async_except_on_cache_miss', 'async_except_on_cache_miss'],
    ['lazy_async', 'lazy_async'],
    ['force_cache', 'force_cache'],
    [true, 'force_blocking'],
    [false, 'force_cache'],
    [undefined, 'force_cache'],
    [null, 'force_cache'],
    ['nonsense', 'force_cache'],
  ])('general mapping: %j → %s', (refresh, mode) => {
    expect(executionModeFromRefresh(refresh)).toBe(mode);
  });

  it.each<[unknown, unknown, ExecutionMode]>([
    [undefined, undefined, 'blocking'],
    [false, undefined, 'blocking'],
    ['force_cache', undefined, 'force_cache'],
    [null, undefined, 'blocking'],
    [true, undefined, 'force_blocking'],
    ['force_async', undefined, 'force_async'],
    ['lazy_async', undefined, 'lazy_async'],
    ['blocking', true, 'async'],
    [undefined, true, 'async'],
    ['force_blocking', true, 'async'],
    ['async', false, 'async'],
  ])('/query: refresh %j, async %j → %s', (refresh, legacyAsync, mode) => {
    expect(queryEndpointMode(refresh, legacyAsync)).toBe(mode);
  });

  it.each([['tomato'], [1], [{}], [['async']]])('/query rejects refresh %j with a 400', (refresh) => {
    const error = (() => {
      try {
        queryEndpointMode(refresh);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).attr).toBe('refresh');
  });

  it('rejects a non-boolean async flag', () => {
    expect(() => queryEndpointMode(undefined, 'yes')).toThrow(ApiError);
  });
});

describe('staleness thresholds', () => {
  it.each<[Interval | null, number | null, number | null]>([
    [null, 6 * HOUR, 12 * HOUR],
    ['second', null, null],
    ['minute', 5 * MIN, 15 * MIN],
    ['hour', HOUR, 2 * HOUR],
    ['day', 6 * HOUR, 12 * HOUR],
    ['week', DAY, DAY],
    ['month', DAY, DAY],
    ['quarter', DAY, DAY],
    ['year', DAY, DAY],
  ])('%s: default %s ms, lazy %s ms', (interval, def, lazy) => {
    expect(stalenessThreshold(interval, 'default')).toBe(def);
    expect(stalenessThreshold(interval, 'lazy')).toBe(lazy);
  });

  const last = new Date('2024-06-01T12:00:00Z');
  const at = (ms: number) => new Date(last.getTime() + ms);

  it('is stale exactly after the threshold', () => {
    expect(isStale({ now: at(HOUR), lastRefresh: last, interval: 'hour' })).toBe(false);
    expect(isStale({ now: at(HOUR + 1), lastRefresh: last, interval: 'hour' })).toBe(true);
    expect(isStale({ now: at(2 * HOUR), lastRefresh: last, interval: 'hour', mode: 'lazy' })).toBe(false);
    expect(isStale({ now: at(2 * HOUR + 1), lastRefresh: last, interval: 'hour', mode: 'lazy' })).toBe(true);
  });

  it('never goes stale when date_to is more than 10 s before the refresh', () => {
    const dateTo = new Date(last.getTime() - 10_001);
    expect(isStale({ now: at(365 * DAY), lastRefresh: last, interval: 'minute', dateTo })).toBe(false);
    const recent = new Date(last.getTime() - 9_000);
    expect(isStale({ now: at(6 * MIN), lastRefresh: last, interval: 'minute', dateTo: recent })).toBe(true);
  });

  it('never goes stale without a threshold (second interval)', () => {
    expect(isStale({ now: at(365 * DAY), lastRefresh: last, interval: 'second' })).toBe(false);
  });

  it('an explicit target age alone decides', () => {
    const targetAge = at(MIN);
    expect(isStale({ now: at(2 * MIN), lastRefresh: last, interval: 'year', targetAge })).toBe(true);
    expect(isStale({ now: at(30 * 1000), lastRefresh: last, interval: 'minute', targetAge })).toBe(false);
  });

  it('cache_target_age and next_allowed_client_refresh', () => {
    expect(cacheTargetAge(last, 'day')?.toISOString()).toBe('2024-06-01T18:00:00.000Z');
    expect(cacheTargetAge(last, 'day', 'lazy')?.toISOString()).toBe('2024-06-02T00:00:00.000Z');
    expect(cacheTargetAge(last, 'second')).toBeNull();
    expect(nextAllowedClientRefresh(last).toISOString()).toBe('2024-06-01T12:01:00.000Z');
    expect(nextAllowedClientRefresh(last, 15 * MIN).toISOString()).toBe('2024-06-01T12:15:00.000Z');
  });

  it('freshness: very fresh, somewhat fresh, stale', () => {
    const f = (ms: number) => freshnessOf({ now: at(ms), lastRefresh: last, interval: 'minute' });
    expect(f(5 * MIN)).toBe('fresh');
    expect(f(5 * MIN + 1)).toBe('lazy_fresh');
    expect(f(15 * MIN)).toBe('lazy_fresh');
    expect(f(15 * MIN + 1)).toBe('stale');
  });
});

// The reference's table (query_runner.run), one row per mode: fresh hit, stale hit, miss.
// lazy_async distinguishes "somewhat fresh" (stale by the default threshold only) from stale.
const TABLE: Array<[ExecutionMode, Record<Freshness | 'miss', Action>]> = [
  ['force_blocking', { fresh: 'calculate', lazy_fresh: 'calculate', stale: 'calculate', miss: 'calculate' }],
  [
    'force_async',
    {
      fresh: 'enqueue_status_only',
      lazy_fresh: 'enqueue_status_only',
      stale: 'enqueue_status_only',
      miss: 'enqueue_status_only',
    },
  ],
  ['blocking', { fresh: 'serve_cached', lazy_fresh: 'calculate', stale: 'calculate', miss: 'calculate' }],
  [
    'async',
    {
      fresh: 'serve_cached',
      lazy_fresh: 'serve_cached_and_refresh',
      stale: 'serve_cached_and_refresh',
      miss: 'enqueue',
    },
  ],
  [
    'async_except_on_cache_miss',
    {
      fresh: 'serve_cached',
      lazy_fresh: 'serve_cached_and_refresh',
      stale: 'serve_cached_and_refresh',
      miss: 'calculate',
    },
  ],
  [
    'lazy_async',
    { fresh: 'serve_cached', lazy_fresh: 'serve_cached', stale: 'serve_cached_and_refresh', miss: 'enqueue' },
  ],
  [
    'force_cache',
    { fresh: 'serve_cached', lazy_fresh: 'serve_cached', stale: 'serve_cached', miss: 'cache_miss' },
  ],
];

describe('decision table', () => {
  for (const [mode, row] of TABLE) {
    for (const [state, action] of Object.entries(row)) {
      it(`${mode} on ${state} → ${action}`, () => {
        expect(decide(mode, state === 'miss' ? null : (state as Freshness))).toBe(action);
      });
    }
  }
});
