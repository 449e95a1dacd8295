import type { AnySelect, Call, Constant, Expr, WindowExpr, WindowFunction } from '../ast.js';
import { HogQLQueryError, locate } from '../errors.js';
import { findFunction, suggestFunction } from '../functions/index.js';
import type { FunctionDef } from '../functions/types.js';
import { propertySourceOf, typedPropertySql } from '../property-types.js';
import { infoOf } from '../resolver/info.js';
import type { PropertyType } from '../types.js';

/** Functions that parse a string argument: a typed property is given to them untyped. */
const PARSES_TEXT = new Set([
  'toFloatOrZero',
  'toIntOrZero',
  'toFloatOrDefault',
  'toDateTime',
  'toDateTime64',
  'parseDateTime',
  'parseDateTimeBestEffort',
  'parseDateTime64BestEffortOrNull',
  'toDate',
]);

import { type Operand, printCompare } from './compare.js';
import type { PrintContext } from './context.js';
import { escapeIdentifier as id } from './escape.js';
import { tableRenames } from './table-renames.js';

const ARITHMETIC = { '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' } as const;
const CASTS: Record<string, string> = {
  string: 'toString',
  text: 'toString',
  varchar: 'toString',
  int: 'toInt64',
  integer: 'toInt64',
  bigint: 'toInt64',
  float: 'toFloat64',
  double: 'toFloat64',
  real: 'toFloat64',
  date: 'toDate',
  datetime: 'toDateTime',
  timestamp: 'toDateTime',
  bool: 'toBool',
  boolean: 'toBool',
  uuid: 'toUUID',
};

/** Prints expressions; the select-level printer extends it. */
export class ExprPrinter {
  /** The aggregate being printed, per nested SELECT (aggregates may not nest inside one). */
  private aggregates: Array<string | null> = [null];
  private inJoinConstraint = false;
  /** Table aliases of each SELECT being printed, innermost last. */
  protected readonly scopeTables: Array<ReadonlySet<string>> = [];
  protected readonly teamId: number;
  /** Table aliases printed under another name because an expression alias uses theirs. */
  private renamed: ReadonlyMap<string, string> = new Map();

  constructor(
    protected readonly ctx: PrintContext,
    private readonly printSelect: (q: AnySelect) => string,
  ) {
    if (!Number.isSafeInteger(ctx.options.teamId)) throw new Error('team id must be an integer');
    this.teamId = ctx.options.teamId;
  }

  /** Call once with the whole query before printing it (see `tableRenames`). */
  protected renameTables(root: AnySelect): void {
    this.renamed = tableRenames(root);
  }

  /** The name a table alias prints as. */
  protected table(alias: string): string {
    return this.renamed.get(alias) ?? alias;
  }

  protected withSelect(print: () => string): string {
    this.aggregates.push(null);
    const outer = this.inJoinConstraint;
    this.inJoinConstraint = false;
    try {
      return print();
    } finally {
      this.aggregates.pop();
      this.inJoinConstraint = outer;
    }
  }

  /**
   * ClickHouse resolves `t.team_id` to an expression alias `t` (a named tuple or JSON value) or
   * `t.team_id` before the table `t`, which would make the team guard read the user's value.
   * Tables are renamed out of the way first, so this only guards against a renaming bug.
   */
  protected shadowsTable(name: string): boolean {
    for (const t of this.scopeTables.at(-1) ?? []) if (name === t || name.startsWith(`${t}.`)) return true;
    return false;
  }

  protected aliasName(name: string): string {
    if (this.shadowsTable(name))
      throw new HogQLQueryError(
        `Alias "${name}" is also the name of a table in this query; choose another alias`,
      );
    return id(name);
  }

  protected joinConstraint(e: Expr): string {
    this.inJoinConstraint = true;
    try {
      return this.expr(e);
    } finally {
      this.inJoinConstraint = false;
    }
  }

  expr(e: Expr): string {
    try {
      return this.exprAt(e);
    } catch (err) {
      // Errors point at the expression they are about (the SQL editor underlines that span).
      throw locate(err, e);
    }
  }

  private exprAt(e: Expr): string {
    const t = e.type;
    if (t) {
      switch (t.kind) {
        case 'column': {
          const col = t.table ? `${id(this.table(t.table))}.${id(t.column)}` : id(t.column);
          return t.tz ? `toTimeZone(${col}, ${this.ctx.literal(this.ctx.options.timezone)})` : col;
        }
        case 'property':
          return this.property(t);
        case 'lambda_arg':
        case 'alias_ref':
          return id(t.name);
        case 'expression':
          return this.expr(t.expr);
        case 'table_ref':
          throw new HogQLQueryError('A table cannot be used as a value');
      }
    }
    switch (e.node) {
      case 'Constant':
        return this.constant(e);
      case 'Field':
        throw new HogQLQueryError(`Unable to resolve field: ${e.chain.join('.')}`);
      case 'Placeholder':
        throw new HogQLQueryError('Unresolved placeholder');
      case 'Alias':
        return `(${this.expr(e.expr)} AS ${this.aliasName(e.alias)})`;
      case 'And':
        return e.exprs.length === 1 ? this.expr(e.exprs[0] as Expr) : `and(${this.list(e.exprs)})`;
      case 'Or':
        return e.exprs.length === 1 ? this.expr(e.exprs[0] as Expr) : `or(${this.list(e.exprs)})`;
      case 'Not':
        return `not(${this.expr(e.expr)})`;
      case 'ArithmeticOperation':
        return `${ARITHMETIC[e.op]}(${this.expr(e.left)}, ${this.expr(e.right)})`;
      case 'CompareOperation':
        return printCompare(e.op, this.operand(e.left), this.operand(e.right), this.inJoinConstraint);
      case 'IsDistinctFrom': {
        const same = printCompare('==', this.operand(e.left), this.operand(e.right), false);
        return e.negated ? same : `not(${same})`;
      }
      case 'BetweenExpr':
        return `ifNull(${this.expr(e.expr)} ${e.negated ? 'NOT ' : ''}BETWEEN ${this.expr(e.low)} AND ${this.expr(e.high)}, 0)`;
      case 'Call':
        return this.call(e);
      case 'TypeCast': {
        const fn = CASTS[e.type_name.toLowerCase()];
        if (!fn) throw new HogQLQueryError(`Unsupported type cast to ${e.type_name}`);
        return `${fn}(${this.expr(e.expr)})`;
      }
      case 'Lambda': {
        const args = e.args.map(id);
        return `${args.length === 1 ? args[0] : `(${args.join(', ')})`} -> ${this.expr(e.expr)}`;
      }
      case 'Array':
        return `[${this.list(e.exprs)}]`;
      case 'Tuple':
        return `tuple(${this.list(e.exprs)})`;
      case 'Dict':
        throw new HogQLQueryError('Dictionaries are not supported in queries');
      case 'ArrayAccess':
        if (e.property.node === 'Constant' && e.property.value === 0) {
          throw new HogQLQueryError('SQL indexes start from one, not from zero. E.g: array[1]');
        }
        return `arrayElement(${this.expr(e.array)}, ${this.expr(e.property)})`;
      case 'TupleAccess':
        return `tupleElement(${this.expr(e.tuple)}, ${this.integer(e.index)})`;
      case 'ArraySlice':
        throw new HogQLQueryError('Array slices are not supported; use arraySlice()');
      case 'WindowFunction':
        return this.windowFunction(e);
      case 'OrderExpr': {
        let sql = `${this.expr(e.expr)} ${e.order === 'DESC' ? 'DESC' : 'ASC'}`;
        if (e.nulls) sql += ` NULLS ${e.nulls === 'FIRST' ? 'FIRST' : 'LAST'}`;
        const f = e.with_fill;
        if (f) {
          sql += ' WITH FILL';
          if (f.from_value) sql += ` FROM ${this.expr(f.from_value)}`;
          if (f.to_value) sql += ` TO ${this.expr(f.to_value)}`;
          if (f.step_value) sql += ` STEP ${this.expr(f.step_value)}`;
        }
        return sql;
      }
      case 'SelectQuery':
      case 'SelectSetQuery':
        return `(${this.printSelect(e)})`;
      default:
        // The parser knows more node kinds (COLUMNS(...), HogQLX tags) than we print: refuse them.
        throw new HogQLQueryError(`Unsupported syntax: ${(e as { node: string }).node}`);
    }
  }

  protected list(exprs: Expr[]): string {
    return exprs.map((x) => this.expr(x)).join(', ');
  }

  private operand(e: Expr): Operand {
    const info = infoOf(e);
    return { sql: this.expr(e), nullable: info.nullable, isNull: e.node === 'Constant' && e.value === null };
  }

  private integer(n: number): string {
    if (!Number.isSafeInteger(n)) throw new HogQLQueryError(`Invalid index ${n}`);
    if (n === 0) throw new HogQLQueryError('SQL indexes start from one, not from zero. E.g: array[1]');
    return String(n);
  }

  private constant(c: Constant): string {
    const v = c.value;
    if (v === null) return 'NULL';
    if (typeof v === 'boolean') return v ? '1' : '0';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
      return String(v);
    }
    if (c.value_type === 'number') {
      if (v === 'Infinity') return 'inf';
      if (v === '-Infinity') return '-inf';
      if (v === 'NaN') return 'nan';
      if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v)) return v;
      throw new HogQLQueryError(`Invalid number: ${v}`);
    }
    return this.ctx.bindString(v);
  }

  /** Above 0 while printing the arguments of a function in PARSES_TEXT. */
  private rawProperties = 0;

  private property(t: PropertyType): string {
    const raw = this.rawProperty(t);
    // Typed by the project's property definitions, as PostHog's property swapper does.
    const lookup = this.ctx.options.propertyType;
    const source = lookup && this.rawProperties === 0 && propertySourceOf(t);
    if (!lookup || !source) return raw;
    const type = lookup(source, String(t.chain[0]));
    return typedPropertySql(raw, type, this.ctx.literal(this.ctx.options.timezone));
  }

  private rawProperty(t: PropertyType): string {
    const table = t.table ? `${id(this.table(t.table))}.` : '';
    // The column stores exactly the expression below for its key (see store/events/columns.ts).
    if (t.materialized) return `${table}${id(t.materialized)}`;
    const personColumn = this.personColumn(t);
    if (personColumn) return `${table}${id(personColumn)}`;
    const keys = t.chain.map((k) => (typeof k === 'number' ? this.integer(k) : this.ctx.bindString(k)));
    return `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${table}${id(t.column)}, ${keys.join(', ')}), ''), 'null'), '^"|"$', '')`;
  }

  /**
   * `person.properties.<key>` in the modes that read it from events (and `poe.properties.<key>`
   * in every mode): the `pmat_` column when the store has one for exactly this key. The name
   * comes from the store's set, never from the query's text.
   */
  private personColumn(t: PropertyType): string | undefined {
    const [key] = t.chain;
    if (t.def !== 'events' || t.column !== 'person_properties' || t.chain.length !== 1) return undefined;
    return typeof key === 'string' ? this.ctx.options.personColumns?.column(key) : undefined;
  }

  private lookup(name: string): FunctionDef {
    const def = findFunction(name);
    if (def) return def;
    const suggestion = suggestFunction(name);
    throw new HogQLQueryError(
      `Unsupported function call '${name}(...)'.${suggestion ? ` Perhaps you meant '${suggestion}(...)'?` : ''}`,
    );
  }

  private checkArity(name: string, def: FunctionDef, args: number, params: number): void {
    const { minArgs: min, maxArgs: max } = def;
    if (args < min || (max !== undefined && args > max)) {
      const need =
        max === min
          ? `exactly ${min}`
          : max === undefined
            ? `at least ${min}`
            : args < min
              ? `at least ${min}`
              : `at most ${max}`;
      throw new HogQLQueryError(
        `Function '${name}' requires ${need} argument${(max ?? min) === 1 ? '' : 's'}`,
      );
    }
    const pmin = def.minParams ?? 0;
    const pmax = def.maxParams ?? (def.minParams === undefined ? 0 : undefined);
    if (params < pmin || (pmax !== undefined && params > pmax)) {
      throw new HogQLQueryError(
        pmax === 0
          ? `Function '${name}' does not take parameters`
          : `Function '${name}' requires ${pmin === pmax ? 'exactly' : 'at least'} ${pmin} parameter${pmin === 1 ? '' : 's'}`,
      );
    }
  }

  private call(c: Call): string {
    let name = c.name;
    let args = c.args;
    if (c.filter_expr) {
      name = `${name}If`;
      args = [...args, c.filter_expr];
    }
    const def = this.lookup(name);
    if (def.window) throw new HogQLQueryError(`Window function '${name}' needs an OVER clause`);
    const params = c.params ?? [];
    this.checkArity(name, def, args.length, params.length);
    if (c.distinct && !def.aggregate)
      throw new HogQLQueryError(`DISTINCT is only valid in aggregations, not in '${name}'`);
    const level = this.aggregates.length - 1;
    const outer = this.aggregates[level];
    if (def.aggregate) {
      if (outer)
        throw new HogQLQueryError(
          `Aggregation '${name}' cannot be nested inside another aggregation '${outer}'.`,
        );
      this.aggregates[level] = name;
    }
    // Functions that parse their argument as text get the property's raw text, as PostHog does.
    const raw = PARSES_TEXT.has(name);
    if (raw) this.rawProperties++;
    try {
      return this.callSql(def, args, params, !!c.distinct);
    } finally {
      if (raw) this.rawProperties--;
      if (def.aggregate) this.aggregates[level] = outer ?? null;
    }
  }

  private callSql(def: FunctionDef, args: Expr[], paramNodes: Expr[], distinct: boolean): string {
    const printed = args.map((a) => this.expr(a));
    const params = paramNodes.map((p) => this.expr(p));
    if (def.print) {
      return def.print({
        args: printed,
        nodes: args,
        params,
        timezone: this.ctx.options.timezone,
        weekStartDay: this.ctx.options.weekStartDay,
        bindString: (s) => this.ctx.bindString(s),
      });
    }
    if (def.tzAware && (def.maxArgs === undefined || printed.length < def.maxArgs)) {
      printed.push(this.ctx.literal(this.ctx.options.timezone));
    }
    const p = params.length ? `(${params.join(', ')})` : '';
    return `${def.clickhouse}${p}(${distinct ? 'DISTINCT ' : ''}${printed.join(', ')})`;
  }

  private windowFunction(w: WindowFunction): string {
    const def = this.lookup(w.name);
    if (!def.window && !def.aggregate) throw new HogQLQueryError(`'${w.name}' is not a window function`);
    const args = w.exprs ?? [];
    const params = w.args ?? [];
    this.checkArity(w.name, def, args.length, params.length);
    const fn = this.callSql(def, args, params, false);
    if (w.over_identifier) return `${fn} OVER ${id(w.over_identifier)}`;
    const over = w.over_expr ?? { node: 'WindowExpr' };
    const frame =
      def.unboundedFrame && !over.frame_method
        ? ' ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING'
        : '';
    return `${fn} OVER (${this.window(over)}${frame})`;
  }

  protected window(w: WindowExpr): string {
    const parts: string[] = [];
    if (w.partition_by?.length) parts.push(`PARTITION BY ${this.list(w.partition_by)}`);
    if (w.order_by?.length) parts.push(`ORDER BY ${this.list(w.order_by)}`);
    if (w.frame_method) {
      const bound = (f: NonNullable<WindowExpr['frame_start']>) => {
        if (f.frame_type === 'CURRENT ROW') return 'CURRENT ROW';
        const v = f.frame_value;
        if (v !== null && v !== undefined && !Number.isSafeInteger(v))
          throw new HogQLQueryError('Invalid window frame');
        return `${v === null || v === undefined ? 'UNBOUNDED' : v} ${f.frame_type}`;
      };
      const method = w.frame_method === 'RANGE' ? 'RANGE' : 'ROWS';
      parts.push(
        w.frame_end && w.frame_start
          ? `${method} BETWEEN ${bound(w.frame_start)} AND ${bound(w.frame_end)}`
          : `${method} ${w.frame_start ? bound(w.frame_start) : 'UNBOUNDED PRECEDING'}`,
      );
    }
    return parts.join(' ');
  }
}
