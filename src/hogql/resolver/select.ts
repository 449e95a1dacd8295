import {
  type AnySelect,
  type CTE,
  cloneAst,
  compare,
  constant,
  type Expr,
  type Field,
  field,
  type JoinExpr,
  type SelectQuery,
} from '../ast.js';
import { HogQLQueryError, locate } from '../errors.js';
import { findTable } from '../schema/database.js';
import { DEFAULT_PERSONS_ON_EVENTS_MODE, eventsFor, type PersonsOnEventsMode } from '../schema/events.js';
import { starFields } from '../schema/fields.js';
import type { ValueInfo } from '../types.js';
import { resolveExpr, type SubqueryResolver } from './expressions.js';
import { resolveInSource } from './fields.js';
import { infoOf } from './info.js';
import { countCteCopy, expandCte, newScope, resetCteCopies, type Scope, type TableSource } from './scope.js';

/** Deeper nesting than this is refused rather than risking the stack. */
export const MAX_DEPTH = 48;

export type Columns = Map<string, ValueInfo>;

const sub: SubqueryResolver = {
  resolveSubquery: (q, scope) => {
    resolveAny(q, scope.ctes, scope.depth + 1);
  },
};

const resolve = (e: Expr, scope: Scope, within?: TableSource) => resolveExpr(sub, e, scope, within);
const fieldResolver = { resolveExpr: resolve };

export interface ResolveOptions {
  /** Where `events.person_id` and `events.person` come from (default: PostHog self-hosted's). */
  personsOnEventsMode?: PersonsOnEventsMode | undefined;
}

/** The events table of the query being resolved (resolution is synchronous, one query at a time). */
let eventsDef = eventsFor(DEFAULT_PERSONS_ON_EVENTS_MODE);

/**
 * Resolves a SELECT or set operation in place; returns its output columns by name. `options`
 * apply to a top-level call (depth 0) and everything it resolves.
 */
export function resolveAny(
  q: AnySelect,
  ctes: Map<string, CTE>,
  depth: number,
  options: ResolveOptions = {},
): Columns {
  if (depth > MAX_DEPTH) throw new HogQLQueryError('Query is nested too deeply');
  if (depth === 0) {
    resetCteCopies();
    eventsDef = eventsFor(options.personsOnEventsMode ?? DEFAULT_PERSONS_ON_EVENTS_MODE);
  }
  if (q.node === 'SelectSetQuery') {
    const columns = resolveAny(q.initial_select_query, ctes, depth + 1);
    for (const s of q.subsequent_select_queries) resolveAny(s.select_query, ctes, depth + 1);
    return columns;
  }
  return resolveSelect(q, ctes, depth);
}

function resolveSelect(q: SelectQuery, outer: Map<string, CTE>, depth: number): Columns {
  let ctes = outer;
  if (q.ctes?.length) {
    ctes = new Map(outer);
    for (const cte of q.ctes) ctes.set(cte.name, cte);
  }
  const scope = newScope(ctes, depth);
  for (let j = q.select_from; j; j = j.next_join ?? null) registerSource(j, scope);

  for (const item of q.select) {
    if (item.node !== 'Alias') continue;
    if (scope.aliases.has(item.alias)) throw new HogQLQueryError(`Cannot redefine an alias: ${item.alias}`);
    scope.aliases.set(item.alias, item);
  }
  for (const item of q.array_join_list ?? []) {
    if (item.node !== 'Alias') throw new HogQLQueryError('ARRAY JOIN arrays must have an alias');
    resolve(item, scope);
    scope.aliases.set(item.alias, item);
  }
  q.select = q.select.flatMap((item) => expandStar(item, scope));
  if (!q.select.length) {
    // `SELECT * FROM (SELECT 1)`: the subquery's columns have no names to select by.
    throw new HogQLQueryError("SELECT * found no named columns: give the subquery's expressions an alias");
  }
  for (const item of q.select) resolve(item, scope);
  for (let j = q.select_from; j; j = j.next_join ?? null) {
    checkJoinConstraint(j, j === q.select_from);
    if (j.constraint?.constraint_type === 'ON') resolve(j.constraint.expr, scope);
    else if (j.constraint) checkUsing(j.constraint.expr);
  }
  for (const clause of [q.where, q.prewhere, q.having, q.qualify, q.limit, q.offset]) {
    if (clause) resolve(clause, scope);
  }
  for (const e of q.group_by ?? []) resolve(e, scope);
  for (const e of q.order_by ?? []) resolve(e, scope);
  if (q.limit_by) {
    resolve(q.limit_by.n, scope);
    if (q.limit_by.offset_value) resolve(q.limit_by.offset_value, scope);
    for (const e of q.limit_by.exprs) resolve(e, scope);
  }
  for (const w of Object.values(q.window_exprs ?? {})) {
    for (const e of w.partition_by ?? []) resolve(e, scope);
    for (const e of w.order_by ?? []) resolve(e, scope);
  }
  finalizeJoins(scope);
  return outputColumns(q);
}

function registerSource(j: JoinExpr, scope: Scope): void {
  const table = j.table;
  if (!table) throw new HogQLQueryError('A join needs a table');
  let source: TableSource;
  if (table.node === 'SelectQuery' || table.node === 'SelectSetQuery') {
    if (j.column_aliases?.length) throw new HogQLQueryError('Column aliases on a subquery are not supported');
    const columns = resolveAny(table, scope.ctes, scope.depth + 1);
    source = { alias: j.alias ?? '', columns, requested: new Set(), join: j, fromClause: true };
  } else if (table.node === 'Field') {
    source = registerTable(j, table, scope);
  } else if (table.node === 'Placeholder') {
    throw new HogQLQueryError('Unresolved placeholder in FROM');
  } else {
    throw new HogQLQueryError('Only tables and subqueries can appear in FROM');
  }
  if (source.alias) {
    if (scope.sources.has(source.alias)) {
      throw new HogQLQueryError(`Table alias "${source.alias}" is used twice in the same FROM`);
    }
    scope.sources.set(source.alias, source);
  }
  scope.order.push(source);
}

function registerTable(j: JoinExpr, table: Field, scope: Scope): TableSource {
  try {
    return registerTableAt(j, table, scope);
  } catch (err) {
    throw locate(err, table);
  }
}

function registerTableAt(j: JoinExpr, table: Field, scope: Scope): TableSource {
  const name = table.chain.join('.');
  const cte = table.chain.length === 1 ? scope.ctes.get(name) : undefined;
  if (cte && cte.cte_type === 'subquery' && !j.table_args) {
    countCteCopy(name);
    const body = cloneAst(cte.expr);
    if (body.node !== 'SelectQuery' && body.node !== 'SelectSetQuery')
      throw new HogQLQueryError(`CTE ${name} is not a query`);
    j.table = body;
    j.alias = j.alias ?? name;
    const columns = expandCte(name, cte, () => resolveAny(body, scope.ctes, scope.depth + 1));
    return { alias: j.alias, columns, requested: new Set(), join: j, fromClause: true };
  }
  const def = table.chain.length !== 1 ? undefined : name === 'events' ? eventsDef : findTable(name);
  if (!def) throw new HogQLQueryError(`Unknown table \`${name}\`.`);
  const alias = j.alias ?? def.name;
  j.alias = alias;
  const source: TableSource = { alias, def, requested: new Set(), join: j, fromClause: true };
  const args = j.table_args ?? [];
  if (def.tableFunction) {
    const { minArgs, maxArgs } = def.tableFunction;
    if (args.length < minArgs) throw new HogQLQueryError(`Table function '${name}' requires arguments`);
    if (args.length > maxArgs) {
      throw new HogQLQueryError(`Table function '${name}' requires at most ${maxArgs} arguments`);
    }
    const empty = newScope(new Map(), scope.depth);
    for (const a of args) resolve(a, empty);
    table.type = { kind: 'table_ref', table: def.name, alias, final: false, unguarded: true };
    return source;
  }
  if (args.length) throw new HogQLQueryError(`Table '${name}' does not accept arguments`);
  if (def.physical) table.type = { kind: 'table_ref', table: def.physical, alias, final: !!def.final };
  return source;
}

function checkUsing(e: Expr): void {
  const names = e.node === 'Tuple' ? e.exprs : [e];
  for (const n of names) {
    if (n.node !== 'Field' || n.chain.length !== 1) throw new HogQLQueryError('USING takes column names');
    n.type = { kind: 'lambda_arg', name: String(n.chain[0]) };
  }
}

/**
 * Every join but a cross join needs ON or USING, as PostHog's grammar requires: `a JOIN b` alone
 * (or `events PASTE JOIN persons`, where PASTE is an alias) reached the engine as SQL it refused.
 */
function checkJoinConstraint(j: JoinExpr, first: boolean): void {
  if (first || j.constraint) return;
  const type = j.join_type ?? 'JOIN';
  if (/\bCROSS JOIN$/.test(type)) return;
  throw new HogQLQueryError(`${type} needs an ON or USING clause (or use CROSS JOIN)`);
}

function expandStar(item: Expr, scope: Scope): Expr[] {
  if (item.node !== 'Field' || item.chain[item.chain.length - 1] !== '*') return [item];
  const sources =
    item.chain.length === 1
      ? scope.order.filter((s) => s.fromClause)
      : [scope.sources.get(String(item.chain[0]))].filter((s): s is TableSource => !!s);
  if (!sources.length || item.chain.length > 2)
    throw new HogQLQueryError(`Unable to resolve field: ${item.chain.join('.')}`);
  return sources.flatMap((s) => {
    const names = s.columns ? [...s.columns.keys()] : s.def ? starFields(s.def) : [];
    return names.map((name): Field => {
      const f = s.alias ? field(s.alias, name) : field(name);
      f.from_asterisk = true;
      return f;
    });
  });
}

/**
 * Adds the joins that names reached through (`person.properties.x`) and builds lazy tables. A
 * lazy join goes right after the table it starts from (after earlier joins from that table), so
 * a later explicit JOIN's ON clause can use it.
 */
function finalizeJoins(scope: Scope): void {
  const root = new Map<TableSource, TableSource>();
  const tail = new Map<TableSource, JoinExpr>();
  for (let i = 0; i < scope.pending.length; i++) {
    const p = scope.pending[i] as (typeof scope.pending)[number];
    const left = field(p.from.alias, p.fromField);
    resolveInSource(fieldResolver, scope, p.from, [p.fromField], left, left.chain);
    const right = field(p.target.alias, p.toField);
    resolveInSource(fieldResolver, scope, p.target, [p.toField], right, right.chain);
    let on: Expr = compare('==', left, right);
    if (p.where) {
      const w = field(p.target.alias, p.where.field);
      resolveInSource(fieldResolver, scope, p.target, [p.where.field], w, w.chain);
      on = { node: 'And', exprs: [on, compare('==', w, constant(p.where.value))] };
    }
    const join = p.target.join;
    join.constraint = { node: 'JoinConstraint', expr: on, constraint_type: 'ON' };
    const origin = root.get(p.from) ?? p.from;
    root.set(p.target, origin);
    const anchor = tail.get(origin) ?? origin.join;
    join.next_join = anchor.next_join ?? null;
    anchor.next_join = join;
    tail.set(origin, join);
  }
  for (const s of scope.order) {
    if (!s.def?.lazy) continue;
    const body = s.def.lazy([...s.requested]);
    s.join.table = body;
    // Generated queries see no user CTEs: a CTE named like a raw table must not replace it.
    resolveAny(body, new Map(), scope.depth + 1);
  }
}

function outputColumns(q: SelectQuery): Columns {
  const columns: Columns = new Map();
  for (const item of q.select) {
    if (item.node === 'Alias') columns.set(item.alias, infoOf(item.expr));
    else if (item.node === 'Field') {
      const last = item.chain[item.chain.length - 1];
      if (typeof last === 'string' && !columns.has(last)) columns.set(last, infoOf(item));
    }
  }
  return columns;
}
