import type { AnySelect, Expr, JoinExpr, SelectQuery, WindowExpr } from '../ast.js';

/**
 * Prints an AST back as HogQL: the `hogql` of a query response and the names of columns without
 * an alias (`count()`, `properties.$browser`). Works on unresolved ASTs.
 */
const PLAIN = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function hogqlIdentifier(name: string | number): string {
  if (typeof name === 'number' || name === '*') return String(name);
  return PLAIN.test(name) ? name : `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}

export function hogqlString(value: string): string {
  const escaped = value
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\0/g, '\\0');
  return `'${escaped}'`;
}

const list = (xs: Expr[] | null | undefined) => (xs ?? []).map(printHogQL).join(', ');

export function printHogQL(e: Expr): string {
  switch (e.node) {
    case 'Constant': {
      const v = e.value;
      if (v === null) return 'NULL';
      if (typeof v === 'boolean') return v ? 'true' : 'false';
      if (typeof v === 'number') return String(v);
      if (e.value_type === 'number')
        return v === 'Infinity' ? 'inf' : v === '-Infinity' ? '-inf' : v === 'NaN' ? 'nan' : v;
      return hogqlString(v);
    }
    case 'Field':
      return e.chain.map(hogqlIdentifier).join('.');
    case 'Placeholder':
      return `{${printHogQL(e.expr)}}`;
    case 'Alias':
      return `${printHogQL(e.expr)} AS ${hogqlIdentifier(e.alias)}`;
    case 'And':
      return `and(${list(e.exprs)})`;
    case 'Or':
      return `or(${list(e.exprs)})`;
    case 'Not':
      return `not(${printHogQL(e.expr)})`;
    case 'ArithmeticOperation':
      return `${{ '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' }[e.op]}(${printHogQL(e.left)}, ${printHogQL(e.right)})`;
    case 'CompareOperation': {
      const op = e.op === '==' ? '=' : /^[a-z ]+$/.test(e.op) ? e.op.toUpperCase() : e.op;
      return `${printHogQL(e.left)} ${op} ${printHogQL(e.right)}`;
    }
    case 'IsDistinctFrom':
      return `${printHogQL(e.left)} IS ${e.negated ? 'NOT ' : ''}DISTINCT FROM ${printHogQL(e.right)}`;
    case 'BetweenExpr':
      return `${printHogQL(e.expr)} ${e.negated ? 'NOT ' : ''}BETWEEN ${printHogQL(e.low)} AND ${printHogQL(e.high)}`;
    case 'Call': {
      const params = e.params?.length ? `(${list(e.params)})` : '';
      const filter = e.filter_expr ? ` FILTER (WHERE ${printHogQL(e.filter_expr)})` : '';
      return `${hogqlIdentifier(e.name)}${params}(${e.distinct ? 'DISTINCT ' : ''}${list(e.args)})${filter}`;
    }
    case 'TypeCast':
      return `${printHogQL(e.expr)}::${e.type_name}`;
    case 'Lambda':
      return `${e.args.length === 1 ? hogqlIdentifier(e.args[0] as string) : `(${e.args.map(hogqlIdentifier).join(', ')})`} -> ${printHogQL(e.expr)}`;
    case 'Array':
      return `[${list(e.exprs)}]`;
    case 'Tuple':
      return `tuple(${list(e.exprs)})`;
    case 'Dict':
      return `{${e.items.map(([k, v]) => `${printHogQL(k)}: ${printHogQL(v)}`).join(', ')}}`;
    case 'ArrayAccess':
      return `${printHogQL(e.array)}${e.nullish ? '?.' : ''}[${printHogQL(e.property)}]`;
    case 'ArraySlice':
      return `${printHogQL(e.array)}[${e.start_expr ? printHogQL(e.start_expr) : ''}:${e.end_expr ? printHogQL(e.end_expr) : ''}]`;
    case 'TupleAccess':
      return `${printHogQL(e.tuple)}.${e.index}`;
    case 'WindowFunction': {
      const params = e.args?.length ? `(${list(e.args)})` : '';
      const over = e.over_identifier
        ? hogqlIdentifier(e.over_identifier)
        : `(${windowExpr(e.over_expr ?? { node: 'WindowExpr' })})`;
      return `${hogqlIdentifier(e.name)}${params}(${list(e.exprs)}) OVER ${over}`;
    }
    case 'OrderExpr':
      return `${printHogQL(e.expr)} ${e.order}${e.nulls ? ` NULLS ${e.nulls}` : ''}`;
    case 'SelectQuery':
    case 'SelectSetQuery':
      return `(${printSelectHogQL(e)})`;
  }
}

function windowExpr(w: WindowExpr): string {
  const parts: string[] = [];
  if (w.partition_by?.length) parts.push(`PARTITION BY ${list(w.partition_by)}`);
  if (w.order_by?.length) parts.push(`ORDER BY ${list(w.order_by)}`);
  if (w.frame_method) {
    const b = (f: NonNullable<WindowExpr['frame_start']>) =>
      f.frame_type === 'CURRENT ROW' ? 'CURRENT ROW' : `${f.frame_value ?? 'UNBOUNDED'} ${f.frame_type}`;
    parts.push(
      w.frame_start && w.frame_end
        ? `${w.frame_method} BETWEEN ${b(w.frame_start)} AND ${b(w.frame_end)}`
        : `${w.frame_method} ${w.frame_start ? b(w.frame_start) : ''}`,
    );
  }
  return parts.join(' ');
}

function joins(j: JoinExpr): string {
  let sql = '';
  for (let x: JoinExpr | null | undefined = j; x; x = x.next_join) {
    if (x !== j) sql += ` ${x.join_type ?? 'JOIN'} `;
    const t = x.table;
    let table = t ? (t.node === 'Field' ? printHogQL(t) : printHogQL(t)) : '';
    if (x.table_args?.length) table += `(${list(x.table_args)})`;
    sql += table;
    if (x.alias && !(t?.node === 'Field' && t.chain.join('.') === x.alias))
      sql += ` AS ${hogqlIdentifier(x.alias)}`;
    if (x.table_final) sql += ' FINAL';
    if (x.constraint) sql += ` ${x.constraint.constraint_type} ${printHogQL(x.constraint.expr)}`;
  }
  return sql;
}

export function printSelectHogQL(q: AnySelect): string {
  if (q.node === 'SelectSetQuery') {
    const member = (m: AnySelect) =>
      m.node === 'SelectSetQuery' ? `(${printSelectHogQL(m)})` : printSelectHogQL(m);
    return [
      member(q.initial_select_query),
      ...q.subsequent_select_queries.map((s) => `${s.set_operator} ${member(s.select_query)}`),
    ].join(' ');
  }
  return selectHogQL(q);
}

function selectHogQL(q: SelectQuery): string {
  const parts: string[] = [];
  if (q.ctes?.length) {
    parts.push(
      `WITH ${q.ctes.map((c) => (c.cte_type === 'column' ? `${printHogQL(c.expr)} AS ${hogqlIdentifier(c.name)}` : `${hogqlIdentifier(c.name)} AS ${printHogQL(c.expr)}`)).join(', ')}`,
    );
  }
  parts.push(`SELECT ${q.distinct ? 'DISTINCT ' : ''}${list(q.select)}`);
  if (q.select_from) parts.push(`FROM ${joins(q.select_from)}`);
  if (q.array_join_op) parts.push(`${q.array_join_op} ${list(q.array_join_list)}`);
  if (q.prewhere) parts.push(`PREWHERE ${printHogQL(q.prewhere)}`);
  if (q.where) parts.push(`WHERE ${printHogQL(q.where)}`);
  if (q.group_by?.length) parts.push(`GROUP BY ${list(q.group_by)}`);
  if (q.having) parts.push(`HAVING ${printHogQL(q.having)}`);
  if (q.qualify) parts.push(`QUALIFY ${printHogQL(q.qualify)}`);
  if (q.order_by?.length) parts.push(`ORDER BY ${list(q.order_by)}`);
  if (q.limit_by) parts.push(`LIMIT ${printHogQL(q.limit_by.n)} BY ${list(q.limit_by.exprs)}`);
  if (q.limit) parts.push(`LIMIT ${printHogQL(q.limit)}${q.limit_with_ties ? ' WITH TIES' : ''}`);
  if (q.offset) parts.push(`OFFSET ${printHogQL(q.offset)}`);
  return parts.join(' ');
}
