import { compare, constant, type Expr, type SelectQuery } from '../../../hogql/ast.js';
import {
  alias,
  all,
  array,
  at,
  eq,
  fn,
  fromSelect,
  ifElse,
  lambda,
  math,
  nth,
  num,
  or,
  select,
  tuple,
  v,
} from '../ast-kit.js';
import { EV } from './events.js';
import type { FunnelSpec } from './spec.js';

/**
 * Per person: every way into the funnel (one candidate per event that can start it), each
 * candidate an array of n event indices into `evs` in step order (0 = step not reached), then the
 * best candidate: most steps, no exclusion in between, latest start on ties (shortest times).
 */
const E = v('evs');
/** Above any event index, so steps * SCORE_BASE + start orders by steps, then start. */
const SCORE_BASE = 1_000_000_000;
const IDX = fn('arrayEnumerate', E);
const ev = (i: Expr) => at(E, i);
const ms = (x: Expr) => nth(x, EV.ms);
const stepFlag = (x: Expr, k: number) => fn('bitTest', nth(x, EV.steps), num(k));
const gt = (l: Expr, r: Expr) => compare('>', l, r);
const le = (l: Expr, r: Expr) => compare('<=', l, r);

/** With all_events attribution every step must share the breakdown value being counted. */
function sameValue(spec: FunnelSpec, x: Expr): Expr[] {
  return spec.attribution === 'all_events' && spec.breakdown
    ? [eq(nth(x, EV.breakdown), v('breakdown_pass'))]
    : [];
}

/** Trends count a person once per interval they entered in: starts must lie in `period_pass`. */
function startConds(spec: FunnelSpec, x: Expr): Expr[] {
  const out = sameValue(spec, x);
  if (spec.viz === 'trends') out.push(eq(nth(x, EV.period), v('period_pass')));
  return out;
}

function withinWindow(x: Expr, start: Expr): Expr {
  return le(ms(x), nth(ev(start), EV.deadline));
}

/**
 * `next_k[j]`: the index of the first event at or after j that can be step k (0: none), filled
 * backwards in one pass, so each candidate finds its next step without scanning.
 */
function nextIndexArrays(spec: FunnelSpec): Expr[] {
  if (spec.order === 'strict') return [];
  const dominance = prunesDominatedStarts(spec)
    ? [
        alias(
          'next_0',
          reverseFill(ifElse(all([stepFlag(v('x'), 0), ...startConds(spec, v('x'))]), v('j'), num(0))),
        ),
      ]
    : [];
  const first = spec.order === 'unordered' ? 0 : 1;
  const next = spec.steps.slice(first).map((_, i) => {
    const k = i + first;
    return alias(
      `next_${k}`,
      reverseFill(ifElse(all([stepFlag(v('x'), k), ...sameValue(spec, v('x'))]), v('j'), num(0))),
    );
  });
  return [...dominance, ...next];
}

/** For each index j, the first index at or after j whose event `pick` (of x, j) marks, 0 if none. */
function reverseFill(pick: Expr): Expr {
  const own = fn('arrayMap', lambda(['x', 'j'], pick), E, IDX);
  return fn('arrayReverseFill', lambda(['y'], gt(v('y'), num(0))), own);
}

/**
 * In an ordered funnel two starts whose next step-1 event is the same reach the same events from
 * there on, and the later start's window ends later: it reaches at least as many steps and wins
 * ties, so the earlier one can never be the best path and is not built at all. Most events of a
 * typical first step ($pageview) are such starts, which made this the funnel's main cost. Not with
 * exclusions: reaching a further step can bring an exclusion into a path and lose it.
 */
function prunesDominatedStarts(spec: FunnelSpec): boolean {
  return spec.order === 'ordered' && spec.steps.length > 1 && spec.exclusions.length === 0;
}

/** Start i is kept unless a later valid start comes before i's next step-1 event (or both have none). */
function undominated(i: Expr): Expr {
  const after = math('+', i, num(1));
  const laterStart = at(v('next_0'), after);
  const step1 = at(v('next_1'), after);
  return or(eq(laterStart, num(0)), all([gt(step1, num(0)), compare('>=', laterStart, step1)]));
}

function orderedCandidates(spec: FunnelSpec): Expr {
  const n = spec.steps.length;
  const pruned = prunesDominatedStarts(spec) ? [undominated(v('i'))] : [];
  const starts = fn(
    'arrayFilter',
    lambda(['i'], all([stepFlag(ev(v('i')), 0), ...startConds(spec, ev(v('i'))), ...pruned])),
    IDX,
  );
  let cands = fn('arrayMap', lambda(['i'], array(v('i'))), starts);
  for (let k = 1; k < n; k++) {
    const prev = at(v('c'), k);
    const start = at(v('c'), 1);
    let next: Expr;
    if (spec.order === 'strict') {
      const cand = math('+', prev, num(1));
      next = ifElse(
        all([le(cand, fn('length', E)), stepFlag(ev(cand), k), withinWindow(ev(cand), start)]),
        cand,
        num(0),
      );
    } else {
      // The earliest step-k event after the previous step, looked up in `next_k` (linear time).
      const found = at(v(`next_${k}`), math('+', prev, num(1)));
      next = ifElse(all([gt(found, num(0)), withinWindow(ev(found), start)]), found, num(0));
    }
    cands = fn(
      'arrayMap',
      lambda(['c'], fn('arrayPushBack', v('c'), ifElse(eq(prev, num(0)), num(0), next))),
      cands,
    );
  }
  return cands;
}

function unorderedCandidates(spec: FunnelSpec): Expr {
  const n = spec.steps.length;
  const anyStep = gt(nth(ev(v('i')), EV.steps), num(0));
  const starts = fn('arrayFilter', lambda(['i'], all([anyStep, ...startConds(spec, ev(v('i')))])), IDX);
  const found = spec.steps.map((_, k) => {
    const idx = at(v(`next_${k}`), v('i'));
    return ifElse(all([gt(idx, num(0)), withinWindow(ev(idx), v('i'))]), idx, num(0));
  });
  const reached = fn('arraySort', fn('arrayFilter', lambda(['y'], gt(v('y'), num(0))), array(...found)));
  return fn('arrayMap', lambda(['i'], fn('arrayResize', reached, num(n), num(0))), starts);
}

/** True when an exclusion event falls between a candidate's from-step and its (reached) to-step. */
function excluded(spec: FunnelSpec, c: Expr): Expr {
  if (!spec.exclusions.length) return constant(false);
  return or(
    ...spec.exclusions.map((e, i) => {
      const from = at(c, e.from + 1);
      const to = at(c, e.to + 1);
      const between = all([
        gt(v('j'), from),
        compare('<', v('j'), to),
        fn('bitTest', nth(v('x'), EV.exclusions), num(i)),
      ]);
      return all([gt(to, num(0)), fn('arrayExists', lambda(['x', 'j'], between), E, IDX)]);
    }),
  );
}

/** One row per person (per breakdown value for all_events): `path`, `steps` and `evs`. */
export function bestPathQuery(spec: FunnelSpec, events: SelectQuery): SelectQuery {
  const cands = spec.order === 'unordered' ? unorderedCandidates(spec) : orderedCandidates(spec);
  const steps = (c: Expr) => fn('arrayCount', lambda(['y'], gt(v('y'), num(0))), c);
  // Best = most steps, then latest start: one number per candidate, so picking it is a max.
  const score = math(
    '+',
    math('*', ifElse(excluded(spec, v('c')), num(0), steps(v('c'))), num(SCORE_BASE)),
    at(v('c'), 1),
  );
  const top = fn('arrayMax', fn('arrayPushBack', v('scores'), num(0)));
  const best = tuple(
    fn('intDiv', v('top'), num(SCORE_BASE)),
    num(0),
    at(v('cands'), fn('indexOf', v('scores'), v('top'))),
  );
  const passes = (name: string, part: number) =>
    alias(name, fn('arrayJoin', fn('arrayDistinct', fn('arrayMap', lambda(['e'], nth(v('e'), part)), E))));
  const extra: Expr[] = [];
  if (spec.attribution === 'all_events' && spec.breakdown) extra.push(passes('breakdown_pass', EV.breakdown));
  if (spec.viz === 'trends') extra.push(passes('period_pass', EV.period));
  return select({
    select: [
      v('aggregation_target'),
      E,
      ...extra,
      ...nextIndexArrays(spec),
      alias('cands', cands),
      alias('scores', fn('arrayMap', lambda(['c'], score), v('cands'))),
      alias('top', top),
      alias('best', best),
    ],
    select_from: fromSelect(events),
  });
}
