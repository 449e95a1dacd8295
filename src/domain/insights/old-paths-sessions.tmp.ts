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
  at,
  eq,
  fn,
  fromSelect,
  fromTable,
  ifElse,
  isTrue,
  lambda,
  math,
  nth,
  num,
  or,
  select,
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
  return ifElse(
    compare('>', fn('length', url), num(1)),
    fn('replaceRegexpOne', url, constant('/$'), constant('')),
    url,
  );
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
  const perActor = select({
    select: [
      alias('actor', field('person_id')),
      alias(
        'evs',
        fn(
          'arraySort',
          lambda(['e'], nth(v('e'), 1)),
          fn('groupArray', {
            node: 'Tuple',
            exprs: [fn('toUnixTimestamp64Milli', field('timestamp')), item],
          }),
        ),
      ),
    ],
    select_from: fromTable('events'),
    where: all(filters),
    group_by: [v('actor')],
  });
  const E = v('evs');
  const gap = lambda(
    ['x', 'i'],
    all([
      compare('>', v('i'), num(1)),
      compare('>', math('-', nth(v('x'), 1), nth(at(E, math('-', v('i'), num(1))), 1)), num(SESSION_GAP_MS)),
    ]),
  );
  const gaps = fn('arrayMap', gap, E, fn('arrayEnumerate', E));
  return select({
    select: [alias('session', fn('arrayJoin', fn('arraySplit', lambda(['x', 'g'], v('g')), E, gaps)))],
    select_from: fromSelect(perActor),
  });
}

export function trimmedQuery(spec: PathsSpec, sessions: SelectQuery): SelectQuery {
  const S = v('session');
  const notRepeat = lambda(
    ['x', 'i'],
    or(eq(v('i'), num(1)), compare('!=', nth(v('x'), 2), nth(at(S, math('-', v('i'), num(1))), 2))),
  );
  const items = (arr: Expr) => fn('arrayMap', lambda(['x'], nth(v('x'), 2)), arr);
  const startIdx = spec.startPoint ? fn('indexOf', items(v('dedup')), constant(spec.startPoint)) : num(1);
  const endIdx = spec.endPoint
    ? fn('indexOf', items(v('from_start')), constant(spec.endPoint))
    : num(spec.stepLimit);
  const path = spec.endPoint
    ? fn(
        'arraySlice',
        v('from_start'),
        fn('greatest', num(1), math('-', v('end_idx'), num(spec.stepLimit - 1))),
        fn('least', v('end_idx'), num(spec.stepLimit)),
      )
    : fn('arraySlice', v('from_start'), num(1), num(spec.stepLimit));
  return select({
    select: [
      alias('dedup', fn('arrayFilter', notRepeat, S, fn('arrayEnumerate', S))),
      alias('start_idx', startIdx),
      alias('from_start', fn('arraySlice', v('dedup'), fn('greatest', v('start_idx'), num(1)))),
      alias('end_idx', endIdx),
      alias('path', path),
    ],
    select_from: fromSelect(sessions),
  });
}
