import type { AnySelect, Expr, JoinExpr, SelectQuery } from '../ast.js';
import { HogQLQueryError } from '../errors.js';
import type { PrintContext } from './context.js';
import { escapeIdentifier as id } from './escape.js';
import { ExprPrinter } from './expr.js';

const JOIN_TYPE =
  /^(GLOBAL )?(((LEFT|RIGHT|FULL)( OUTER)?|INNER)( (ANY|ALL|ASOF|SEMI|ANTI))?|((ANY|ALL|ASOF|SEMI|ANTI) )?((LEFT|RIGHT|FULL)( OUTER)?|INNER)|CROSS|ANY|ALL|ASOF|SEMI|ANTI)? ?JOIN$/;
const ARRAY_JOIN = new Set(['ARRAY JOIN', 'LEFT ARRAY JOIN', 'INNER ARRAY JOIN']);
const SET_OPERATORS = new Set(['UNION ALL', 'UNION DISTINCT', 'INTERSECT', 'INTERSECT DISTINCT', 'EXCEPT']);

/**
 * Prints a resolved query as ClickHouse SQL. This is the security boundary: a table prints only
 * if the resolver typed it as a declared table, and every such table gets the team guard in its
 * own SELECT's WHERE.
 */
export class ClickHousePrinter extends ExprPrinter {
  constructor(ctx: PrintContext) {
    super(ctx, (q) => this.select(q));
  }

  /** Prints a whole query (the entry point; `select` prints nested ones). */
  print(q: AnySelect): string {
    this.renameTables(q);
    return this.select(q);
  }

  select(q: AnySelect): string {
    if (q.node === 'SelectSetQuery') {
      let sql = this.setMember(q.initial_select_query);
      for (const s of q.subsequent_select_queries) {
        if (!SET_OPERATORS.has(s.set_operator))
          throw new HogQLQueryError(`Unsupported set operator ${s.set_operator}`);
        sql += ` ${s.set_operator} ${this.setMember(s.select_query)}`;
      }
      return sql;
    }
    const tables = new Set<string>();
    for (let j = q.select_from; j; j = j.next_join) if (j.alias) tables.add(this.table(j.alias));
    this.scopeTables.push(tables);
    try {
      return this.withSelect(() => this.selectQuery(q));
    } finally {
      this.scopeTables.pop();
    }
  }

  private setMember(q: AnySelect): string {
    return q.node === 'SelectSetQuery' ? `(${this.select(q)})` : this.select(q);
  }

  private selectQuery(q: SelectQuery): string {
    const used = new Set<string>();
    const items = q.select.map((e) => this.selectItem(e, used));
    const parts = [`SELECT ${q.distinct ? 'DISTINCT ' : ''}${items.join(', ')}`];
    const guards: string[] = [];
    if (q.select_from) parts.push(`FROM ${this.joins(q.select_from, guards)}`);
    if (q.array_join_op) {
      if (!ARRAY_JOIN.has(q.array_join_op))
        throw new HogQLQueryError(`Invalid ARRAY JOIN operation: ${q.array_join_op}`);
      parts.push(`${q.array_join_op} ${(q.array_join_list ?? []).map((e) => this.expr(e)).join(', ')}`);
    }
    if (q.prewhere) {
      // PREWHERE runs before WHERE on every row read: the first table's guard must come first.
      const first = q.select_from?.table?.type;
      const guarded = first?.kind === 'table_ref' && !first.unguarded;
      const prewhere = this.expr(q.prewhere);
      parts.push(`PREWHERE ${guarded ? `and(${guards[0]}, ${prewhere})` : prewhere}`);
    }
    const where = [...guards, ...(q.where ? [this.expr(q.where)] : [])];
    if (where.length) parts.push(`WHERE ${where.length === 1 ? where[0] : `and(${where.join(', ')})`}`);
    if (q.group_by?.length) parts.push(`GROUP BY ${q.group_by.map((e) => this.expr(e)).join(', ')}`);
    if (q.having) parts.push(`HAVING ${this.expr(q.having)}`);
    const windows = Object.entries(q.window_exprs ?? {});
    if (windows.length)
      parts.push(`WINDOW ${windows.map(([n, w]) => `${id(n)} AS (${this.window(w)})`).join(', ')}`);
    if (q.qualify) parts.push(`QUALIFY ${this.expr(q.qualify)}`);
    if (q.order_by?.length) parts.push(`ORDER BY ${q.order_by.map((e) => this.expr(e)).join(', ')}`);
    if (q.limit_by) {
      const offset = q.limit_by.offset_value ? ` OFFSET ${this.expr(q.limit_by.offset_value)}` : '';
      parts.push(
        `LIMIT ${this.expr(q.limit_by.n)}${offset} BY ${q.limit_by.exprs.map((e) => this.expr(e)).join(', ')}`,
      );
    }
    // ClickHouse takes WITH TIES only after the OFFSET (`LIMIT n WITH TIES OFFSET m` is HogQL's order).
    if (q.limit) parts.push(`LIMIT ${this.expr(q.limit)}`);
    if (q.offset) parts.push(`OFFSET ${this.expr(q.offset)}`);
    if (q.limit && q.limit_with_ties) parts.push('WITH TIES');
    return parts.join(' ');
  }

  /** Fields in a SELECT list are named after their last part so outer queries can use them. */
  private selectItem(e: Expr, used: Set<string>): string {
    if (e.node === 'Alias') {
      used.add(e.alias);
      return `${this.expr(e.expr)} AS ${this.aliasName(e.alias)}`;
    }
    const sql = this.expr(e);
    if (e.node === 'Field') {
      const last = e.chain[e.chain.length - 1];
      if (
        typeof last === 'string' &&
        last &&
        !used.has(last) &&
        sql !== id(last) &&
        !this.shadowsTable(last)
      ) {
        used.add(last);
        return `${sql} AS ${id(last)}`;
      }
    }
    return sql;
  }

  private joins(first: JoinExpr, guards: string[]): string {
    let sql = '';
    for (let j: JoinExpr | null | undefined = first; j; j = j.next_join) {
      if (j !== first) {
        const type = j.join_type ?? 'JOIN';
        if (!JOIN_TYPE.test(type)) throw new HogQLQueryError(`Unsupported join type: ${type}`);
        sql += ` ${type} `;
      }
      sql += this.joinTable(j, guards);
      if (j.constraint) {
        const c = j.constraint;
        sql +=
          c.constraint_type === 'USING'
            ? ` USING (${(c.expr.node === 'Tuple' ? c.expr.exprs : [c.expr]).map((e) => this.expr(e)).join(', ')})`
            : ` ON ${this.joinConstraint(c.expr)}`;
      }
    }
    return sql;
  }

  private joinTable(j: JoinExpr, guards: string[]): string {
    const table = j.table;
    const alias = j.alias ? ` AS ${id(this.table(j.alias))}` : '';
    if (table && (table.node === 'SelectQuery' || table.node === 'SelectSetQuery')) {
      return `(${this.select(table)})${alias}`;
    }
    const t = table?.type;
    if (!table || t?.kind !== 'table_ref')
      throw new HogQLQueryError('Only declared tables and subqueries can be queried');
    if (t.unguarded) {
      if (t.table !== 'numbers') throw new HogQLQueryError(`Unknown table function ${t.table}`);
      return `numbers(${(j.table_args ?? []).map((a) => this.expr(a)).join(', ')})${alias}`;
    }
    guards.push(`equals(${id(this.table(t.alias))}.team_id, ${this.teamId})`);
    const since = this.ctx.options.eventsSince;
    if (since !== undefined && t.table === 'events') {
      if (!ENGINE_TIME.test(since)) throw new Error('eventsSince must be YYYY-MM-DD HH:MM:SS');
      guards.push(
        `greaterOrEquals(${id(this.table(t.alias))}.timestamp, toDateTime64('${since}', 6, 'UTC'))`,
      );
    }
    const sample = j.sample ? ` SAMPLE ${this.sample(j.sample)}` : '';
    const name = this.ctx.options.table(t.table);
    this.ctx.tables.add(name);
    return `${name}${alias}${t.final ? ' FINAL' : ''}${sample}`;
  }

  private sample(s: NonNullable<JoinExpr['sample']>): string {
    const ratio = (r: typeof s.sample_value) =>
      r.right ? `${sampleNumber(r.left)}/${sampleNumber(r.right)}` : sampleNumber(r.left);
    return `${ratio(s.sample_value)}${s.offset_value ? ` OFFSET ${ratio(s.offset_value)}` : ''}`;
  }
}

/** The only form of a retention cut the printer splices into SQL (it comes from our code, never a user). */
const ENGINE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The engine's grammar takes only unsigned numbers in SAMPLE (`SAMPLE -1` was a syntax error there). */
function sampleNumber(e: Expr): string {
  if (e.node === 'Constant' && typeof e.value === 'number' && Number.isFinite(e.value) && e.value >= 0)
    return String(e.value);
  throw new HogQLQueryError('SAMPLE takes a number of rows or a fraction (0.1, 1/10), not negative');
}
