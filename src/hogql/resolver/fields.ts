import { materializedEventColumn } from '../../store/events/columns.js';
import { type Expr, type Field, field } from '../ast.js';
import { HogQLQueryError } from '../errors.js';
import { findTable } from '../schema/database.js';
import type { FieldDef } from '../schema/fields.js';
import type { PropertyType } from '../types.js';
import type { Scope, TableSource } from './scope.js';

type Chain = Array<string | number>;

export interface FieldResolver {
  /** Resolves an expression in the current scope (used for computed fields). */
  resolveExpr(expr: Expr, scope: Scope, within?: TableSource): Expr;
}

const show = (chain: Chain) => chain.join('.');

export function unresolved(chain: Chain): HogQLQueryError {
  return new HogQLQueryError(`Unable to resolve field: ${show(chain)}`);
}

/** JSON property chains index arrays from 1, as SQL does. */
export function checkPropertyChain(chain: Chain): void {
  for (const part of chain) {
    if (part === 0 || part === '0') {
      throw new HogQLQueryError('SQL indexes start from one, not from zero. E.g: array[1]');
    }
  }
}

/** Resolves `chain` (without the table alias) against one FROM source; sets `node.type`. */
export function resolveInSource(
  r: FieldResolver,
  scope: Scope,
  source: TableSource,
  chain: Chain,
  node: Field,
  full: Chain,
): void {
  const [head, ...rest] = chain;
  if (typeof head !== 'string') throw unresolved(full);
  if (source.columns) {
    const info = source.columns.get(head);
    if (!info) throw unresolved(full);
    node.type = rest.length
      ? propertyOf(source.alias, head, info.data, rest, full)
      : { kind: 'column', table: source.alias, column: head, data: info.data, nullable: info.nullable };
    return;
  }
  const def = source.def;
  const f = def?.fields[head];
  if (!def || !f) throw unresolved(full);
  resolveDef(r, scope, source, f, head, rest, node, full);
}

function resolveDef(
  r: FieldResolver,
  scope: Scope,
  source: TableSource,
  f: FieldDef,
  name: string,
  rest: Chain,
  node: Field,
  full: Chain,
): void {
  const def = source.def;
  switch (f.kind) {
    case 'column': {
      const lazy = !!def?.lazy;
      if (lazy) source.requested.add(name);
      const column = lazy ? name : f.column;
      if (rest.length) {
        node.type = withMaterialized({
          ...propertyOf(source.alias, column, f.data, rest, full),
          def: def?.name,
        });
        return;
      }
      node.type = {
        kind: 'column',
        table: source.alias,
        column,
        data: f.data,
        nullable: !!f.nullable,
        tz: !lazy && f.data === 'datetime',
        def: def?.name,
      };
      return;
    }
    case 'expression': {
      if (rest.length) throw unresolved(full);
      const expr = r.resolveExpr(f.expr(), scope, source);
      node.type = { kind: 'expression', expr, data: f.data, nullable: f.nullable ?? true };
      return;
    }
    case 'virtual': {
      const [sub, ...more] = rest;
      const inner = typeof sub === 'string' ? f.fields[sub] : undefined;
      if (!inner) throw unresolved(full);
      resolveDef(r, scope, source, inner, String(sub), more, node, full);
      return;
    }
    case 'traverser':
      resolveInSource(r, scope, source, [...f.chain, ...rest], node, full);
      return;
    case 'lazy_join': {
      if (!rest.length)
        throw new HogQLQueryError(`Can't select a table when a column is expected: ${show(full)}`);
      // A join from a computed field (`person_id` → persons) needs the joins that field reads
      // first: resolving it now queues them ahead of this one.
      const from = def?.fields[f.from];
      if (from?.kind === 'expression' && !scope.sources.has(`${source.alias}__${name}`)) {
        const probe = field(f.from);
        resolveInSource(r, scope, source, [f.from], probe, probe.chain);
      }
      const target = ensureJoin(scope, source, name, f);
      resolveInSource(r, scope, target, rest, node, full);
      return;
    }
  }
}

/** `properties.$browser` on events reads its own column when there is one. */
export function withMaterialized(t: PropertyType): PropertyType {
  const [key] = t.chain;
  t.materialized =
    t.def === 'events' && t.column === 'properties' && t.chain.length === 1 && typeof key === 'string'
      ? materializedEventColumn(key)
      : undefined;
  return t;
}

export function propertyOf(
  table: string,
  column: string,
  data: string,
  rest: Chain,
  full: Chain,
): PropertyType {
  if (data !== 'json') {
    throw new HogQLQueryError(
      `Can not access property ${show(rest)} on field ${show(full.slice(0, full.length - rest.length))}`,
    );
  }
  checkPropertyChain(rest);
  return { kind: 'property', table, column, chain: rest };
}

function ensureJoin(
  scope: Scope,
  from: TableSource,
  name: string,
  f: Extract<FieldDef, { kind: 'lazy_join' }>,
): TableSource {
  const alias = `${from.alias}__${name}`;
  const existing = scope.sources.get(alias);
  if (existing) return existing;
  const def = findTable(f.table);
  if (!def) throw new Error(`lazy join to unknown table ${f.table}`);
  const target: TableSource = {
    alias,
    def,
    requested: new Set(),
    join: { node: 'JoinExpr', table: null, alias, join_type: f.join },
  };
  scope.sources.set(alias, target);
  scope.order.push(target);
  scope.pending.push({ from, fromField: f.from, target, toField: f.to, joinType: f.join, where: f.where });
  return target;
}
