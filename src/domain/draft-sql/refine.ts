import { constant, type Expr, type Position, type SelectQuery } from '../../hogql/ast.js';
import { parseExpr, parseSelect } from '../../hogql/parse.js';
import { hogqlIdentifier, printSelectHogQL } from '../../hogql/printer/hogql.js';
import { eventIs } from './draft.js';
import type { Analysis } from './prompt.js';
import type { Resolved } from './resolve.js';
import { windowCondition } from './window.js';

/** "add a filter …", "only Chrome", "filter to signups last week": edits of the current query. */
export const REFINE =
  /^\s*(?:add|filter|only|restrict|narrow|exclude|also|limit)\b|\b(?:add|filter|only|restrict|narrow)\b/;

export type Refinement = { sql: string } | { problem: string };

function tableOf(q: SelectQuery): string | undefined {
  const t = q.select_from?.table;
  return t?.node === 'Field' ? String(t.chain[0]) : undefined;
}

const EVENT_FIELDS =
  /(?<![\w$.`])(properties|person|event|timestamp|distinct_id|person_id|\$session_id|\$start_timestamp)\b/g;

/** With joins, bare `properties` is ambiguous: name the FROM table, outside string literals. */
function qualify(condition: string, alias: string): string {
  return condition
    .split(/('(?:[^'\\]|\\.)*')/)
    .map((part, i) => (i % 2 ? part : part.replace(EVENT_FIELDS, `${alias}.$1`)))
    .join('');
}

function maxEnd(node: unknown, best = -1): number {
  if (!node || typeof node !== 'object') return best;
  if (Array.isArray(node)) return node.reduce((b: number, n) => maxEnd(n, b), best);
  const o = node as { end?: Position; type?: unknown };
  let top = Math.max(best, o.end?.offset ?? -1);
  for (const [key, value] of Object.entries(o)) if (key !== 'type') top = maxEnd(value, top);
  return top;
}

/**
 * The edit made in the user's own text, so their formatting survives: conditions ANDed into the
 * WHERE (or a WHERE added after FROM), LIMIT replaced or appended. Parser offsets count code points.
 * Undefined when the text gives no safe place; the caller then prints the edited AST instead.
 */
function editText(current: string, q: SelectQuery, conds: string[], limit: number | undefined) {
  const chars = Array.from(current.replace(/[\s;]+$/, ''));
  const edits: Array<{ at: number; end: number; text: string }> = [];
  if (conds.length) {
    const where = q.where;
    if (where?.start && where.end) {
      const wrap = where.node === 'Or';
      edits.push({ at: where.start.offset, end: where.start.offset, text: wrap ? '(' : '' });
      edits.push({
        at: where.end.offset,
        end: where.end.offset,
        text: `${wrap ? ')' : ''} AND ${conds.join(' AND ')}`,
      });
    } else {
      const after = maxEnd([q.select_from, q.array_join_list, q.prewhere]);
      if (where || after < 0) return undefined;
      const space = chars[after] === ' ' ? 1 : 0;
      edits.push({
        at: after,
        end: after + space,
        text: `\nWHERE ${conds.join(' AND ')}${space ? '\n' : ''}`,
      });
    }
  }
  if (limit !== undefined) {
    if (q.limit?.start && q.limit.end)
      edits.push({ at: q.limit.start.offset, end: q.limit.end.offset, text: String(limit) });
    else if (!q.limit && !q.offset && !q.settings && !q.limit_by)
      edits.push({ at: chars.length, end: chars.length, text: `\nLIMIT ${limit}` });
    else return undefined;
  }
  for (const e of edits.sort((x, y) => y.at - x.at)) chars.splice(e.at, e.end - e.at, e.text);
  const text = chars.join('');
  try {
    parseSelect(text);
    return text;
  } catch {
    return undefined;
  }
}

/**
 * The current query with the prompt's conditions ANDed into its WHERE (and its LIMIT replaced when
 * asked); undefined when the prompt names nothing to add. Throws the parser's error for a
 * current query that is not HogQL.
 */
export function refine(current: string, a: Analysis, r: Resolved): Refinement | undefined {
  const ast = parseSelect(current);
  const adds: string[] = [...r.conditions];
  if (r.events.length) adds.push(eventIs(r.events));
  if (r.excluded.length) adds.push(`NOT (${eventIs(r.excluded)})`);
  const asked = /\blimit(?:ed)?(?:\s+it)?(?:\s+to)?\s+(\d{1,6})\b/.exec(a.raw);
  const limit = asked ? Number(asked[1]) : undefined;
  const table = ast.node === 'SelectQuery' ? tableOf(ast) : undefined;
  if (a.window) {
    const column = table === 'sessions' ? '$start_timestamp' : 'timestamp';
    const c = windowCondition(a.window, column);
    if (c) adds.push(c);
  }
  if (!adds.length && limit === undefined) return undefined;
  if (ast.node !== 'SelectQuery') {
    return { problem: 'The current query combines several SELECTs; add the filter to one of them by hand.' };
  }
  const from = ast.select_from;
  const alias = from?.alias ?? table;
  const conds = from?.next_join && alias ? adds.map((c) => qualify(c, hogqlIdentifier(alias))) : adds;
  const edited = editText(current, ast, conds, limit);
  if (edited) return { sql: edited };
  const exprs: Expr[] = conds.map((c) => parseExpr(c));
  if (exprs.length) {
    const existing = ast.where ? (ast.where.node === 'And' ? ast.where.exprs : [ast.where]) : [];
    const all = [...existing, ...exprs];
    ast.where = all.length === 1 ? (all[0] as Expr) : { node: 'And', exprs: all };
  }
  if (limit !== undefined) ast.limit = constant(limit);
  return { sql: printSelectHogQL(ast) };
}
