import { compare, constant, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import { parseExpr } from '../../hogql/parse.js';
import { propertiesToExpr } from '../../hogql/property-filters.js';
import type { RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { resolveDateRange } from '../time/date-range.js';
import {
  alias,
  all,
  array,
  eq,
  fn,
  fromSelect,
  fromTable,
  isTrue,
  lambda,
  math,
  num,
  or,
  select,
  tuple,
  v,
} from './ast-kit.js';
import { timeRange } from './funnels/events.js';
import type { PathsSpec } from './paths-spec.js';

/**
 * The path of each session: a person's steps (time in ms, step name) in time order, split at
 * 30-minute gaps, repeats in a row collapsed, then trimmed to the start/end points and the step
 * limit (`start_idx`/`end_idx` 0 when the session lacks them).
 */
const SESSION_GAP_MS = 30 * 60 * 1000;
const str = (e: Expr) => fn('ifNull', fn('toString', e), constant(''));
const ev = field('event');

function pageUrl(): Expr {
  const url = str(field('properties', '$current_url'));
  // One trailing slash dropped (not from '/' itself): one substring whose length is shortened by
  // the test, not a regex, nor an `if` choosing between two strings per event.
  const trailing = all([compare('>', fn('length', url), num(1)), fn('endsWith', url, constant('/'))]);
  return fn('substring', url, num(1), math('-', fn('length', url), trailing));
}

/** Which events are steps, and what each step is called. */
function pathItem(spec: PathsSpec): { where: Expr | null; item: Expr } {
  const screen = str(field('properties', '$screen_name'));
  const custom = fn('not', fn('startsWith', ev, constant('$')));
  const branches: Array<[Expr, Expr]> = [];
  for (const t of spec.types) {
    if (t === '$pageview') branches.push([eq(ev, constant('$pageview')), pageUrl()]);
    if (t === '$screen') branches.push([eq(ev, constant('$screen')), screen]);
    if (t === 'custom_event') branches.push([custom, ev]);
  }
  let item: Expr;
  let where: Expr | null;
  if (spec.types.includes('hogql')) {
    item = str(parseExpr(spec.hogql as string));
    where = null;
  } else if (!branches.length) {
    item = fn('multiIf', eq(ev, constant('$pageview')), pageUrl(), eq(ev, constant('$screen')), screen, ev);
    where = null;
  } else if (branches.length === 1) {
    // The filter keeps only this kind of event: its name as it is, without a multiIf (which
    // computes every branch and copies the chosen strings, a tenth of the query).
    [[where, item]] = branches as [[Expr, Expr]];
  } else {
    item = fn('multiIf', ...branches.flat(), ev);
    where = or(...branches.map((b) => b[0]));
  }
  for (const c of spec.cleaning) item = fn('replaceRegexpAll', item, constant(c.regex), constant(c.alias));
  return { where, item };
}

export function sessionsQuery(spec: PathsSpec, node: QueryNode, ctx: RunnerContext): SelectQuery {
  const range = resolveDateRange(node.dateRange as never, { timezone: ctx.timezone, now: ctx.now });
  const { where, item } = pathItem(spec);
  const filters: Expr[] = timeRange(range);
  if (where) filters.push(where);
  if (spec.excludeEvents.length) {
    const excluded = array(...spec.excludeEvents.map((e) => constant(e)));
    filters.push(fn('not', fn('has', excluded, ev)), fn('not', fn('has', excluded, item)));
  }
  const props = propertiesToExpr(spec.properties);
  if (!isTrue(props)) filters.push(props);
  const ms = fn('toUnixTimestamp64Milli', field('timestamp'));
  const perActor = select({
    select: [
      alias('actor', field('person_id')),
      // Times and names gathered as two plain arrays, not one array of (ms, name) tuples:
      // groupArray of a tuple stores each value serialized, and cost about a fifth of the query.
      // Names sort by (time, name), so ties at the same millisecond order as the tuples did.
      alias('times', fn('arraySort', fn('groupArray', ms))),
      alias(
        'names',
        fn(
          'arraySort',
          lambda(['n', 't'], tuple(v('t'), v('n'))),
          fn('groupArray', item),
          fn('groupArray', ms),
        ),
      ),
    ],
    select_from: fromTable('events'),
    where: all(filters),
    group_by: [v('actor')],
  });
  const { times, names } = collapsedSessions(v('times'), v('names'));
  // One row per session, its times and names side by side (ARRAY JOIN of both: no zipped copy).
  return select({
    select: [v('ts'), v('ns')],
    select_from: fromSelect(perActor),
    array_join_op: 'ARRAY JOIN',
    array_join_list: [alias('ts', times), alias('ns', names)],
  });
}

/**
 * A person's times and names cut into sessions at 30-minute gaps, with repeats in a row collapsed
 * (the first of them kept). Every lambda takes the arrays it compares as arguments, shifted by one
 * where it needs the previous element: ClickHouse copies an array a lambda captures once per
 * element it maps, so `evs[i - 1]` inside a lambda over `evs` was quadratic per person.
 */
function collapsedSessions(times: Expr, names: Expr): { times: Expr; names: Expr } {
  // arrayDifference starts at 0: the first event never starts a new session.
  const gaps = fn(
    'arrayMap',
    lambda(['d'], compare('>', v('d'), num(SESSION_GAP_MS))),
    fn('arrayDifference', times),
  );
  const previous = fn('arrayPushFront', fn('arrayPopBack', names), constant(''));
  // Kept: a session's first event, or a step other than the one before it.
  const keep = fn(
    'arrayMap',
    lambda(['n', 'p', 'g', 'i'], or(eq(v('i'), num(1)), v('g'), compare('!=', v('n'), v('p')))),
    names,
    previous,
    gaps,
    fn('arrayEnumerate', names),
  );
  const kept = (arr: Expr) => fn('arrayFilter', lambda(['x', 'k'], v('k')), arr, keep);
  const split = (arr: Expr) => fn('arraySplit', lambda(['x', 'g'], v('g')), kept(arr), kept(gaps));
  return { times: split(times), names: split(names) };
}

export function trimmedQuery(spec: PathsSpec, sessions: SelectQuery): SelectQuery {
  const startIdx = spec.startPoint ? fn('indexOf', v('ns'), constant(spec.startPoint)) : num(1);
  // Without a start point the session is used as it is: a copy of every session's arrays cost
  // about a fifth of the whole query.
  const fromStart = (arr: string) =>
    spec.startPoint ? fn('arraySlice', v(arr), fn('greatest', v('start_idx'), num(1))) : v(arr);
  const endIdx = spec.endPoint ? fn('indexOf', v('from_ns'), constant(spec.endPoint)) : num(spec.stepLimit);
  const path = (arr: string) =>
    spec.endPoint
      ? fn(
          'arraySlice',
          v(arr),
          fn('greatest', num(1), math('-', v('end_idx'), num(spec.stepLimit - 1))),
          fn('least', v('end_idx'), num(spec.stepLimit)),
        )
      : fn('arraySlice', v(arr), num(1), num(spec.stepLimit));
  return select({
    select: [
      alias('start_idx', startIdx),
      alias('from_ts', fromStart('ts')),
      alias('from_ns', fromStart('ns')),
      alias('end_idx', endIdx),
      alias('path_ts', path('from_ts')),
      alias('path', path('from_ns')),
    ],
    select_from: fromSelect(sessions),
  });
}
