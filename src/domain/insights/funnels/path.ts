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
import { EV, needsEventTuples, STEP_SHIFT, windowMs } from './events.js';
import type { FunnelSpec } from './spec.js';

/**
 * Per person: every way into the funnel (one candidate per event that can start it), each
 * candidate an array of n event indices into `evs` in step order (0 = step not reached), then the
 * best candidate: most steps, no exclusion in between, latest start on ties (shortest times).
 *
 * Cost rule: a lambda that reads an array of the row it was not given as an argument gets a copy
 * of that array for every element it maps, so a lambda over the events that read `evs` was
 * quadratic per person (the funnel took 4x its hand-written SQL at 10M events). Lambdas over
 * events therefore take what they read as arguments (zipped arrays), and lambdas over candidates
 * read only plain integer arrays (`ev_ms`, `ev_steps`, `next_k`), never `evs`.
 */
const E = v('evs');
const KEYS = v('ev_keys');
/** Above any event index, so steps * SCORE_BASE + start orders by steps, then start. */
const SCORE_BASE = 1_000_000_000;
const IDX = v('ev_idx');
const gt = (l: Expr, r: Expr) => compare('>', l, r);
const le = (l: Expr, r: Expr) => compare('<=', l, r);
const flag = (bitsValue: Expr, k: number) => fn('bitTest', bitsValue, num(k));
/** Step bits of event index i, for lambdas over candidates. */
const stepFlagAt = (i: Expr, k: number) => flag(at(v('ev_steps'), i), k);
/** The array shifted left by one (element j holds the original j + 1), 0 at the end. */
const shifted = (a: Expr) => fn('arrayPushBack', fn('arrayPopFront', a), num(0));

/** Plain arrays taken from the keys (and `evs`) once, for lambdas over candidates to read. */
function eventColumns(spec: FunnelSpec): Expr[] {
  const out = [
    alias('ev_idx', fn('arrayEnumerate', KEYS)),
    alias('ev_count', fn('length', KEYS)),
    alias('ev_ms', fn('arrayMap', lambda(['k'], fn('intDiv', v('k'), num(STEP_SHIFT))), KEYS)),
    alias('ev_steps', fn('arrayMap', lambda(['k'], fn('modulo', v('k'), num(STEP_SHIFT))), KEYS)),
  ];
  if (spec.exclusions.length)
    out.push(alias('ev_exclusions', fn('arrayMap', lambda(['e'], nth(v('e'), EV.exclusions)), E)));
  return out;
}

/**
 * A lambda over the events: `s` is an event's step bits, `x` its tuple (when the funnel has
 * them), `j` its index, then any further arrays zipped in.
 */
function overEvents(spec: FunnelSpec, extra: Array<[string, Expr]>, body: Expr): Expr[] {
  const tuples = needsEventTuples(spec);
  const args = ['j', 's', ...(tuples ? ['x'] : []), ...extra.map(([name]) => name)];
  return [lambda(args, body), IDX, v('ev_steps'), ...(tuples ? [E] : []), ...extra.map(([, a]) => a)];
}

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

/** Event index `found` is within the window of the candidate starting at event index `start`. */
function withinWindow(spec: FunnelSpec, found: Expr, start: Expr): Expr {
  return le(at(v('ev_ms'), found), math('+', at(v('ev_ms'), start), num(windowMs(spec))));
}

/** For each index j, the first index at or after j whose event `pick` marks, 0 if none. */
function reverseFill(spec: FunnelSpec, pick: Expr): Expr {
  const own = fn('arrayMap', ...overEvents(spec, [], ifElse(pick, v('j'), num(0))));
  return fn('arrayReverseFill', lambda(['y'], gt(v('y'), num(0))), own);
}

/**
 * `next_k[j]`: the index of the first event at or after j that can be step k (0: none), filled
 * backwards in one pass, so each candidate finds its next step without scanning.
 */
function nextIndexArrays(spec: FunnelSpec): Expr[] {
  if (spec.order === 'strict') return [];
  const x = v('x');
  const s = v('s');
  const dominance = prunesDominatedStarts(spec)
    ? [alias('next_0', reverseFill(spec, all([flag(s, 0), ...startConds(spec, x)])))]
    : [];
  const first = spec.order === 'unordered' ? 0 : 1;
  const next = spec.steps.slice(first).map((_, i) => {
    const k = i + first;
    return alias(`next_${k}`, reverseFill(spec, all([flag(s, k), ...sameValue(spec, x)])));
  });
  return [...dominance, ...next];
}

/**
 * In an ordered funnel two starts whose next step-1 event is the same reach the same events from
 * there on, and the later start's window ends later: it reaches at least as many steps and wins
 * ties, so the earlier one can never be the best path and is not built at all. Most events of a
 * typical first step ($pageview) are such starts. Not with exclusions: reaching a further step
 * can bring an exclusion into a path and lose it.
 */
function prunesDominatedStarts(spec: FunnelSpec): boolean {
  return spec.order === 'ordered' && spec.steps.length > 1 && spec.exclusions.length === 0;
}

/** The events that can start a path, as indices: a lambda over zipped arrays, nothing captured. */
function startIndices(spec: FunnelSpec, canStart: (steps: Expr) => Expr): Expr {
  const conds = [canStart(v('s')), ...startConds(spec, v('x'))];
  if (!prunesDominatedStarts(spec)) return fn('arrayFilter', ...overEvents(spec, [], all(conds)));
  // Kept unless a later valid start comes before this start's next step-1 event (or both have none).
  const later = v('later_start');
  const step1 = v('next_step1');
  conds.push(or(eq(later, num(0)), all([gt(step1, num(0)), compare('>=', later, step1)])));
  const extra: Array<[string, Expr]> = [
    ['later_start', shifted(v('next_0'))],
    ['next_step1', shifted(v('next_1'))],
  ];
  return fn('arrayFilter', ...overEvents(spec, extra, all(conds)));
}

function orderedCandidates(spec: FunnelSpec): Expr {
  const n = spec.steps.length;
  const starts = startIndices(spec, (steps) => flag(steps, 0));
  let cands = fn('arrayMap', lambda(['i'], array(v('i'))), starts);
  for (let k = 1; k < n; k++) {
    const prev = at(v('c'), k);
    const start = at(v('c'), 1);
    let next: Expr;
    if (spec.order === 'strict') {
      const cand = math('+', prev, num(1));
      next = ifElse(
        all([le(cand, v('ev_count')), stepFlagAt(cand, k), withinWindow(spec, cand, start)]),
        cand,
        num(0),
      );
    } else {
      // The earliest step-k event after the previous step, looked up in `next_k` (linear time).
      const found = at(v(`next_${k}`), math('+', prev, num(1)));
      next = ifElse(all([gt(found, num(0)), withinWindow(spec, found, start)]), found, num(0));
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
  const starts = startIndices(spec, (steps) => gt(steps, num(0)));
  const found = spec.steps.map((_, k) => {
    const idx = at(v(`next_${k}`), v('i'));
    return ifElse(all([gt(idx, num(0)), withinWindow(spec, idx, v('i'))]), idx, num(0));
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
      const between = all([gt(v('j'), from), compare('<', v('j'), to), flag(v('x'), i)]);
      return all([gt(to, num(0)), fn('arrayExists', lambda(['x', 'j'], between), v('ev_exclusions'), IDX)]);
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
      ...(needsEventTuples(spec) ? [E] : []),
      KEYS,
      ...extra,
      ...eventColumns(spec),
      ...nextIndexArrays(spec),
      alias('cands', cands),
      alias('scores', fn('arrayMap', lambda(['c'], score), v('cands'))),
      alias('top', top),
      alias('best', best),
    ],
    select_from: fromSelect(events),
  });
}
