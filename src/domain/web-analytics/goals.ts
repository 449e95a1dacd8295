import type { Expr } from '../../hogql/ast.js';
import { parseSelect } from '../../hogql/parse.js';
import { liveActions } from '../../store/meta/action-lookups.js';
import type { ActionStep } from '../../store/meta/actions.js';
import type { MetaDb } from '../../store/meta/db.js';
import { actionToExpr } from '../actions/predicate.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { at_, checkWebNode, filterExpr, invalid, num, periods, type WebNode } from './common.js';

/** PostHog shows the project's first five actions as goals. */
const GOALS = 5;

interface GoalAction {
  id: number;
  name: string | null;
  steps: ActionStep[];
}

/**
 * The actions WebGoalsQuery lists, in PostHog's order: pinned ones first (oldest pin first), then
 * the most recently calculated (created), live ones only.
 */
export async function goalActions(meta: MetaDb, teamId: number): Promise<GoalAction[]> {
  const time = (v: string | null) => (v == null ? Number.POSITIVE_INFINITY : Date.parse(v));
  return (await liveActions(meta, teamId))
    .sort(
      (a, b) =>
        // Pinned before unpinned (NULLs last, as PostgreSQL sorts them ascending).
        time(a.pinnedAt) - time(b.pinnedAt) ||
        Date.parse(b.lastCalculatedAt) - Date.parse(a.lastCalculatedAt) ||
        b.id - a.id,
    )
    .slice(0, GOALS)
    .map(({ id, name, steps }) => ({ id, name, steps }));
}

const ORDER_INDEX: Record<string, number> = { ConvertingUsers: 1, TotalConversions: 2, ConversionRate: 3 };

interface GoalsNode extends WebNode {
  orderBy?: unknown;
  limit?: number;
}

/**
 * WebGoalsQuery: one row per goal action, [name, (converting users), (conversions), (rate)],
 * each a (current, previous) pair. Visitors are people with a session that started in a period;
 * an action's conversions count its events inside the period, in those sessions.
 */
export async function runWebGoals(node: GoalsNode, ctx: RunnerContext): Promise<QueryResult> {
  const columns = [
    'context.columns.action_name',
    'context.columns.converting_users',
    'context.columns.total_conversions',
    'context.columns.conversion_rate',
  ];
  const actions = ctx.meta ? await goalActions(ctx.meta, ctx.teamId) : [];
  const p = periods(node, ctx);
  const compare = p.prevFrom !== null;
  if (actions.length === 0)
    return queryResponse(
      { results: [], samplingRate: { numerator: 1 } },
      { seconds: 0, modifiers: node.modifiers },
    );
  const within = (col: string, a: Date, b: Date) => `${col} >= ${at_(a)} AND ${col} < ${at_(b)}`;
  const curT = within('timestamp', p.from, p.to);
  const prevT = p.prevFrom ? within('timestamp', p.prevFrom, p.from) : 'false';
  const curS = within('start', p.from, p.to);
  const prevS = p.prevFrom ? within('start', p.prevFrom, p.from) : 'false';
  const exprs: Record<string, Expr> = { filters: filterExpr(node, ctx) };
  const inner: string[] = [];
  const outer: string[] = [];
  actions.forEach((a, i) => {
    exprs[`a${i}`] = actionToExpr(a.steps);
    inner.push(`countIf({a${i}} AND ${curT}) AS c${i}, countIf({a${i}} AND ${prevT}) AS p${i}`);
    outer.push(`sum(c${i}), sum(p${i}), uniqIf(person_id, c${i} > 0), uniqIf(person_id, p${i} > 0)`);
  });
  const anyAction = actions.map((_, i) => `{a${i}}`).join(' OR ');
  const from = p.prevFrom ?? p.from;
  const text = `SELECT uniqIf(person_id, ${curS}), uniqIf(person_id, ${prevS}), ${outer.join(', ')}
    FROM (SELECT any(events.person_id) AS person_id, min(session.$start_timestamp) AS start, ${inner.join(', ')}
      FROM events
      WHERE $session_id IS NOT NULL AND $session_id != '' AND (event IN ('$pageview', '$screen') OR ${anyAction})
        AND ${within('timestamp', from, p.to)} AND {filters}
      GROUP BY $session_id)
    WHERE (${curS}) OR (${prevS})`;
  const run = await runSelect(parseSelect(text), ctx, { modifiers: node.modifiers, exprs });
  const row = (run.rows[0] ?? []).map(num);
  const visitors = [row[0] ?? 0, row[1] ?? 0] as const;
  const rate = (uniques: number, total: number) => (total > 0 ? uniques / total : 0);
  let results = actions.map((a, i) => {
    const [c, pr, cu, pu] = [0, 1, 2, 3].map((k) => row[2 + i * 4 + k] ?? 0) as [
      number,
      number,
      number,
      number,
    ];
    return [
      a.name,
      [cu, compare ? pu : null],
      [c, compare ? pr : null],
      [rate(cu, visitors[0]), compare ? rate(pu, visitors[1]) : null],
    ];
  });
  if (Array.isArray(node.orderBy)) {
    const index = ORDER_INDEX[String(node.orderBy[0])];
    const sign = node.orderBy[1] === 'DESC' ? -1 : 1;
    if (index !== undefined)
      results = [...results].sort(
        (x, y) => sign * (((x[index] as number[])[0] as number) - ((y[index] as number[])[0] as number)),
      );
  }
  return queryResponse(
    { results, columns, hogql: run.hogql, samplingRate: { numerator: 1 } },
    { seconds: run.seconds, modifiers: node.modifiers },
  );
}

export const webGoalsRunner: QueryRunner = {
  check: (node: QueryNode) => {
    const n = node as GoalsNode;
    checkWebNode(n);
    if (n.orderBy != null) {
      const o = n.orderBy;
      if (
        !Array.isArray(o) ||
        o.length !== 2 ||
        typeof o[0] !== 'string' ||
        (o[1] !== 'ASC' && o[1] !== 'DESC')
      )
        throw invalid('orderBy must be [field, ASC|DESC]', 'orderBy');
    }
    if (n.limit != null && (!Number.isInteger(n.limit) || n.limit < 1 || n.limit > 10000))
      throw invalid('limit must be an integer from 1 to 10000', 'limit');
    return node;
  },
  run: (node, ctx) => runWebGoals(node as GoalsNode, ctx),
  // The goals are the project's actions: an edited, added or pinned action is another answer.
  metaState: (deps, teamId) => goalActions(deps.meta, teamId),
  staleness: { interval: 'minute' },
};
