import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnySelect,
  type CompareOp,
  type CTE,
  call,
  compare,
  constant,
  type Expr,
  field,
  type JoinExpr,
  type SelectQuery,
  type SelectSetQuery,
  type SetOperator,
} from '../../src/hogql/ast.js';
import { type CompileOptions, compileSelect } from '../../src/hogql/compile.js';
import { classifyEngineError } from '../../src/hogql/engine-errors.js';
import { isExposed } from '../../src/hogql/errors.js';
import { FORBIDDEN_FUNCTIONS, FUNCTION_CATEGORIES, findFunction } from '../../src/hogql/functions/index.js';
import { type HogQLDb, openHogQLDb, P_OTHER, SECRET, TEAM } from '../helpers/hogql-fixture.js';

/**
 * Random valid HogQL over the declared schema (tables, properties, lazy joins, joins, subqueries,
 * CTEs, set operations, allowlisted calls). For every query the printed SQL must guard each
 * physical table in the WHERE of the SELECT that reads it and call only allowlisted functions;
 * a sample also runs on the two-team fixture and must not return team 2's data.
 */
let db: HogQLDb;
beforeAll(async () => {
  db = await openHogQLDb('property');
});
afterAll(async () => {
  await db?.close();
});

// ---------------------------------------------------------------------------------------------
// The schema as the generator sees it: fields by coarse type.

type T = 'str' | 'num' | 'dt' | 'uuid';
type Fields = ReadonlyArray<readonly [string, T]>;

const TABLES: Readonly<Record<string, Fields>> = {
  events: [
    ['event', 'str'],
    ['distinct_id', 'str'],
    ['uuid', 'uuid'],
    ['timestamp', 'dt'],
    ['$session_id', 'str'],
    ['elements_chain', 'str'],
    ['properties.$browser', 'str'],
    ['properties.plan', 'str'],
    ['properties.n', 'str'],
    ['properties.obj.a.b', 'str'],
    ['properties.arr.1', 'str'],
    ["properties['$current_url']", 'str'],
    ['person_id', 'uuid'],
    ['person.properties.email', 'str'],
    ['person.created_at', 'dt'],
    ['pdi.distinct_id', 'str'],
    ['pdi.person.properties.name', 'str'],
    ['poe.properties.email', 'str'],
    ['session.$session_duration', 'num'],
    ['session.$entry_current_url', 'str'],
    ['session.$pageview_count', 'num'],
    ['group_0.properties.industry', 'str'],
    ['group_0.key', 'str'],
  ],
  persons: [
    ['id', 'uuid'],
    ['created_at', 'dt'],
    ['properties.email', 'str'],
    ['properties.name', 'str'],
  ],
  person_distinct_ids: [
    ['distinct_id', 'str'],
    ['person_id', 'uuid'],
    ['person.properties.email', 'str'],
  ],
  groups: [
    ['key', 'str'],
    ['index', 'num'],
    ['properties.industry', 'str'],
  ],
  sessions: [
    ['session_id', 'str'],
    ['$session_duration', 'num'],
    ['$start_timestamp', 'dt'],
    ['$entry_current_url', 'str'],
    ['$pageview_count', 'num'],
  ],
  session_replay_events: [
    ['session_id', 'str'],
    ['distinct_id', 'str'],
    ['click_count', 'num'],
    ['start_time', 'dt'],
    ['person.properties.email', 'str'],
    ['session.$session_duration', 'num'],
    ['pdi.person_id', 'uuid'],
  ],
  raw_persons: [
    ['id', 'uuid'],
    ['properties.email', 'str'],
    ['version', 'num'],
  ],
  raw_person_distinct_ids: [
    ['distinct_id', 'str'],
    ['person_id', 'uuid'],
  ],
  raw_groups: [
    ['key', 'str'],
    ['properties.industry', 'str'],
  ],
  raw_sessions: [
    ['session_id', 'str'],
    ['min_timestamp', 'dt'],
    ['pageview_count', 'num'],
  ],
  raw_session_replay_events: [
    ['session_id', 'str'],
    ['click_count', 'num'],
  ],
};
const TABLE_NAMES = Object.keys(TABLES);

/** A FROM source the expressions of one SELECT can read; `guarded`: it has a `team_id`. */
interface Source {
  alias: string;
  fields: Fields;
  guarded: boolean;
  /** Identifies alias and fields, for memoizing the arbitraries built over a scope. */
  key: string;
}

const STRINGS = ['a', "it's", 'x\\y', '%', '{hogql_val_0:String}', '', 'Chrome', 'signup', 'd1', 'é✓'];

/** Calls whose argument and result types are known, so a sample can run on the engine. */
const TYPED_CALLS: ReadonlyArray<readonly [string, T, readonly T[]]> = [
  ['lower', 'str', ['str']],
  ['upper', 'str', ['str']],
  ['concat', 'str', ['str', 'str']],
  ['toString', 'str', ['num']],
  ['toString', 'str', ['dt']],
  ['toString', 'str', ['uuid']],
  ['coalesce', 'str', ['str', 'str']],
  ['ifNull', 'str', ['str', 'str']],
  ['trim', 'str', ['str']],
  ['replaceAll', 'str', ['str', 'str', 'str']],
  ['reverse', 'str', ['str']],
  ['domain', 'str', ['str']],
  ['length', 'num', ['str']],
  ['abs', 'num', ['num']],
  ['round', 'num', ['num']],
  ['greatest', 'num', ['num', 'num']],
  ['least', 'num', ['num', 'num']],
  ['position', 'num', ['str', 'str']],
  ['toYear', 'num', ['dt']],
  ['toHour', 'num', ['dt']],
  ['toInt', 'num', ['str']],
  ['toFloat', 'num', ['str']],
  ['toStartOfDay', 'dt', ['dt']],
  ['toStartOfWeek', 'dt', ['dt']],
  ['toDateTime', 'dt', ['str']],
];
const AGGREGATES: ReadonlyArray<readonly [string, T, T | null]> = [
  ['count', 'num', null],
  ['sum', 'num', 'num'],
  ['avg', 'num', 'num'],
  ['uniq', 'num', 'str'],
  ['min', 'str', 'str'],
  ['max', 'dt', 'dt'],
  ['any', 'str', 'str'],
];

// ---------------------------------------------------------------------------------------------
// Generators. Each builds the HogQL text and its AST together: the AST compiles without the WASM
// parser (which takes ~250 ms on these), the text goes through it for the sample that runs.
// `wild` adds calls to any allowlisted function with a valid argument count; those only compile.

interface G {
  t: string;
  a: Expr;
}
interface Ctx {
  sources: readonly Source[];
  depth: number;
  wild: boolean;
}

const g = (t: string, a: Expr): G => ({ t, a });
const gCall = (name: string, args: G[]): G =>
  g(
    `${name}(${args.map((x) => x.t).join(', ')})`,
    call(
      name,
      args.map((x) => x.a),
    ),
  );
const gConst = (v: string | number | boolean): G =>
  g(typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v), constant(v));

/** `a.properties.arr.1` / `a.properties['k']` as the parser builds them. */
function fieldNode(text: string): Expr {
  const access = /^(.*)\['(.*)'\]$/.exec(text);
  if (access)
    return {
      node: 'ArrayAccess',
      array: fieldNode(access[1] as string),
      property: constant(access[2] as string),
    };
  const parts = text.split('.');
  const last = parts[parts.length - 1] as string;
  if (/^\d+$/.test(last))
    return { node: 'TupleAccess', tuple: fieldNode(parts.slice(0, -1).join('.')), index: Number(last) };
  return field(...parts);
}

const ALL_FUNCTIONS = Object.values(FUNCTION_CATEGORIES).flatMap((t) =>
  Object.entries(t).filter(([, def]) => !def.aggregate && !def.window && def.minArgs <= 3),
);

function constantOf(t: T): fc.Arbitrary<G> {
  switch (t) {
    case 'str':
      return fc.constantFrom(...STRINGS).map(gConst);
    case 'num':
      return fc.integer({ min: 0, max: 100 }).map(gConst);
    case 'dt':
      return fc
        .constantFrom('2025-01-15 10:00:00', '2025-03-30', '')
        .map((d) => (d ? gCall('toDateTime', [gConst(d)]) : gCall('now', [])));
    case 'uuid':
      return fc
        .constantFrom('0190b6a4-0000-7000-8000-000000000001', '0190b6a4-0000-7000-8000-000000000077')
        .map((u) => gCall('toUUID', [gConst(u)]));
  }
}

function fieldOf(ctx: Ctx, t: T): fc.Arbitrary<G> | undefined {
  const options = ctx.sources.flatMap((s) =>
    s.fields.filter(([, ft]) => ft === t).map(([f]) => (s.alias ? `${s.alias}.${f}` : f)),
  );
  return options.length ? fc.constantFrom(...options).map((f) => g(f, fieldNode(f))) : undefined;
}

/** Arbitraries are built per scope shape once: building them afresh for every draw is slow. */
const memo = new Map<string, fc.Arbitrary<G>>();
function memoized(kind: string, ctx: Ctx, t: string, build: () => fc.Arbitrary<G>): fc.Arbitrary<G> {
  const key = `${kind}|${t}|${ctx.depth}|${ctx.wild}|${ctx.sources.map((s) => s.key).join(',')}`;
  let arb = memo.get(key);
  if (!arb) {
    arb = build();
    memo.set(key, arb);
  }
  return arb;
}

function expr(ctx: Ctx, t: T): fc.Arbitrary<G> {
  return memoized('expr', ctx, t, () => buildExpr(ctx, t));
}

function buildExpr(ctx: Ctx, t: T): fc.Arbitrary<G> {
  const leaves = [constantOf(t), fieldOf(ctx, t), fieldOf(ctx, t)].filter((a): a is fc.Arbitrary<G> => !!a);
  if (ctx.depth <= 0 || t === 'uuid') return fc.oneof(...leaves);
  const inner: Ctx = { ...ctx, depth: ctx.depth - 1 };
  const calls = TYPED_CALLS.filter(([, r]) => r === t).map(([name, , args]) =>
    fc.tuple(...args.map((a) => expr(inner, a))).map((xs) => gCall(name, xs)),
  );
  const more: fc.Arbitrary<G>[] = [];
  if (t === 'num') {
    more.push(
      fc
        .tuple(expr(inner, 'num'), fc.constantFrom('+', '-', '*'), expr(inner, 'num'))
        .map(([a, op, b]) =>
          g(`(${a.t} ${op} ${b.t})`, { node: 'ArithmeticOperation', op: op as '+', left: a.a, right: b.a }),
        ),
    );
    more.push(
      fc
        .tuple(expr(inner, 'dt'), expr(inner, 'dt'))
        .map(([a, b]) => gCall('dateDiff', [gConst('day'), a, b])),
    );
    if (ctx.depth >= 2) more.push(scalarSubquery);
  }
  if (t === 'str') {
    more.push(
      fc
        .tuple(cond(inner), expr(inner, 'str'), expr(inner, 'str'))
        .map(([c, a, b]) => gCall('if', [c, a, b])),
    );
    more.push(
      expr(inner, 'str').map((a) => {
        const lambda: Expr = {
          node: 'Lambda',
          args: ['x'],
          expr: call('concat', [field('x'), constant('!')]),
        };
        const arr: Expr = { node: 'Array', exprs: [a.a, constant('b')] };
        return g(
          `arrayStringConcat(arrayMap(x -> concat(x, '!'), [${a.t}, 'b']), ',')`,
          call('arrayStringConcat', [call('arrayMap', [lambda, arr]), constant(',')]),
        );
      }),
    );
    more.push(
      fc
        .tuple(expr(inner, 'str'), expr(inner, 'str'))
        .map(([a, b]) => g(`(${a.t} ?? ${b.t})`, call('ifNull', [a.a, b.a]))),
    );
  }
  if (ctx.wild) more.push(wildCall(inner));
  return fc.oneof(
    { weight: 3, arbitrary: fc.oneof(...leaves) },
    { weight: 2, arbitrary: fc.oneof(...calls, ...more) },
  );
}

function wildCall(ctx: Ctx): fc.Arbitrary<G> {
  return fc
    .tuple(
      fc.constantFrom(...ALL_FUNCTIONS),
      fc.array(fc.constantFrom<T>('str', 'num', 'dt'), { minLength: 3, maxLength: 3 }),
    )
    .chain(([[name, def], types]) =>
      fc
        .tuple(
          ...types
            .slice(0, Math.max(def.minArgs, Math.min(def.maxArgs ?? 2, 2)))
            .map((t) => expr({ ...ctx, depth: 0 }, t)),
        )
        .map((args) => gCall(name, args)),
    );
}

const scalarSubquery = fc.constantFrom(...TABLE_NAMES).map((t) =>
  g(`(SELECT count() FROM ${t})`, {
    node: 'SelectQuery',
    select: [call('count', [])],
    select_from: { node: 'JoinExpr', table: field(t) },
  } satisfies SelectQuery),
);

const COMPARE: Record<string, CompareOp> = {
  '=': '==',
  '!=': '!=',
  '<': '<',
  '>=': '>=',
  '<=': '<=',
  LIKE: 'like',
  '=~': '=~',
};

function cond(ctx: Ctx): fc.Arbitrary<G> {
  return memoized('cond', ctx, '', () => buildCond(ctx));
}

function buildCond(ctx: Ctx): fc.Arbitrary<G> {
  const inner: Ctx = { ...ctx, depth: ctx.depth - 1 };
  const compareOf = fc
    .constantFrom<T>('str', 'num', 'dt')
    .chain((ty) =>
      fc
        .tuple(
          expr(inner, ty),
          fc.constantFrom('=', '!=', '<', '>=', ty === 'str' ? 'LIKE' : '=', ty === 'str' ? '=~' : '<='),
          expr(inner, ty),
        )
        .map(([a, op, b]) => g(`${a.t} ${op} ${b.t}`, compare(COMPARE[op] as CompareOp, a.a, b.a))),
    );
  const guarded = ctx.sources.filter((s) => s.guarded);
  const options: fc.Arbitrary<G>[] = [
    compareOf,
    expr(inner, 'str').map((a) => g(`${a.t} IS NULL`, compare('==', a.a, constant(null)))),
    fc
      .tuple(expr(inner, 'str'), fc.array(constantOf('str'), { minLength: 2, maxLength: 4 }))
      .map(([a, xs]) =>
        g(
          `${a.t} IN (${xs.map((x) => x.t).join(', ')})`,
          compare('in', a.a, { node: 'Tuple', exprs: xs.map((x) => x.a) }),
        ),
      ),
    fc.constant(g('1 = 1', compare('==', constant(1), constant(1)))),
    fc.constant(g('true', constant(true))),
  ];
  if (guarded.length) {
    // The classic: ask for another team's rows next to one's own.
    options.push(
      fc.constantFrom(...guarded).map((s) => {
        const f = `${s.alias}.team_id`;
        return g(`${f} = 2`, compare('==', field(s.alias, 'team_id'), constant(2)));
      }),
    );
  }
  if (ctx.depth > 0) {
    options.push(
      fc
        .tuple(cond(inner), fc.constantFrom('AND', 'OR'), cond(inner))
        .map(([a, op, b]) =>
          g(
            `(${a.t} ${op} ${b.t})`,
            op === 'AND' ? { node: 'And', exprs: [a.a, b.a] } : { node: 'Or', exprs: [a.a, b.a] },
          ),
        ),
    );
    options.push(cond(inner).map((c) => g(`NOT (${c.t})`, { node: 'Not', expr: c.a })));
    if (ctx.depth >= 2) {
      options.push(
        fc
          .tuple(expr(inner, 'str'), select({ ...inner, sources: [] }, 1, 'str'))
          .map(([a, q]) => g(`${a.t} IN (${q.t})`, compare('in', a.a, q.a))),
      );
    }
  }
  return fc.oneof(...options);
}

interface From {
  t: string;
  join: JoinExpr;
  sources: Source[];
  ctes: Array<{ t: string; a: CTE }>;
}

const GUARDED_TABLES = new Set([
  'events',
  'raw_persons',
  'raw_person_distinct_ids',
  'raw_groups',
  'raw_sessions',
  'raw_session_replay_events',
]);

/** A FROM clause: tables, subqueries, CTE names and joins, with the sources it brings. */
function fromClause(ctx: Ctx): fc.Arbitrary<From> {
  type One = { t: string; join: JoinExpr; source: Source; cte?: { t: string; a: CTE } };
  const one = (alias: string): fc.Arbitrary<One> => {
    const plain = fc.constantFrom(...TABLE_NAMES).map(
      (t): One => ({
        t: `${t} AS ${alias}`,
        join: { node: 'JoinExpr', table: field(t), alias },
        source: { alias, fields: TABLES[t] as Fields, guarded: GUARDED_TABLES.has(t), key: `${alias}:${t}` },
      }),
    );
    if (ctx.depth < 2) return plain;
    const sub = fc
      .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom<T>('str', 'num'), fc.boolean())
      .chain(([n, ty, asCte]) =>
        select({ ...ctx, depth: ctx.depth - 1, sources: [] }, n, ty).map((q): One => {
          const fields = Array.from({ length: n }, (_, i) => [`c${i}`, ty] as const);
          const source = { alias, fields, guarded: false, key: `${alias}:${n}${ty}` };
          if (!asCte)
            return { t: `(${q.t}) AS ${alias}`, join: { node: 'JoinExpr', table: q.a, alias }, source };
          const name = `cte_${alias}`;
          return {
            t: `${name} AS ${alias}`,
            join: { node: 'JoinExpr', table: field(name), alias },
            source,
            cte: { t: `${name} AS (${q.t})`, a: { node: 'CTE', name, expr: q.a, cte_type: 'subquery' } },
          };
        }),
      );
    return fc.oneof({ weight: 3, arbitrary: plain }, { weight: 1, arbitrary: sub });
  };
  const joinType = fc.constantFrom(
    'JOIN',
    'INNER JOIN',
    'LEFT JOIN',
    'RIGHT JOIN',
    'FULL OUTER JOIN',
    'CROSS JOIN',
    'ANY LEFT JOIN',
  );
  return fc
    .tuple(one(`t${ctx.depth}a`), fc.option(fc.tuple(one(`t${ctx.depth}b`), joinType), { nil: undefined }))
    .chain(([a, b]) => {
      const ctes = [a.cte, b?.[0].cte].filter((c): c is { t: string; a: CTE } => !!c);
      if (!b) return fc.constant({ t: a.t, join: a.join, sources: [a.source], ctes });
      const [right, type] = b;
      const sources = [a.source, right.source];
      const joined = (t: string, constraint?: Expr): From => ({
        t,
        join: {
          ...a.join,
          next_join: {
            ...right.join,
            join_type: type === 'ANY LEFT JOIN' ? 'LEFT ANY JOIN' : type,
            ...(constraint
              ? { constraint: { node: 'JoinConstraint', expr: constraint, constraint_type: 'ON' } }
              : {}),
          },
        },
        sources,
        ctes,
      });
      if (type === 'CROSS JOIN') return fc.constant(joined(`${a.t} CROSS JOIN ${right.t}`));
      const both: Ctx = { ...ctx, sources, depth: 1 };
      const side = (s: Source) => fieldOf({ ...both, sources: [s] }, 'str') ?? fc.constant(gConst('k'));
      return fc
        .tuple(side(a.source), side(right.source), fc.option(cond(both), { nil: undefined }))
        .map(([l, r, extra]) => {
          const key = compare('==', l.a, r.a);
          return joined(
            `${a.t} ${type} ${right.t} ON ${l.t} = ${r.t}${extra ? ` AND ${extra.t}` : ''}`,
            extra ? { node: 'And', exprs: [key, extra.a] } : key,
          );
        });
    });
}

const AGGREGATE_ITEM = /^(toString\()?(count|sum|avg|uniq|min|max|any)\(/;

/** A SELECT (or set operation) with `n` output columns `c0..` of type `ty`. */
function select(ctx: Ctx, n: number, ty: T): fc.Arbitrary<{ t: string; a: SelectQuery | SelectSetQuery }> {
  const single = fromClause(ctx).chain(({ t: from, join, sources, ctes }) => {
    const inner: Ctx = { ...ctx, sources, depth: Math.min(ctx.depth, 2) };
    const agg = fc.constantFrom(...AGGREGATES.filter(([, r, a]) => r === ty || (ty === 'str' && a !== null)));
    const item = (i: number) =>
      fc
        .oneof(
          expr(inner, ty),
          agg.chain(([name, r, a]) =>
            (a ? expr({ ...inner, depth: 1 }, a).map((x): G[] => [x]) : fc.constant<G[]>([])).map(
              (xs: G[]) => {
                const c = gCall(name, xs);
                return r === ty ? c : gCall('toString', [c]);
              },
            ),
          ),
          fieldOf(inner, ty) ?? constantOf(ty),
        )
        .map((e) => ({ t: `${e.t} AS c${i}`, a: { node: 'Alias', alias: `c${i}`, expr: e.a } as Expr }));
    const first = sources[0] as Source;
    const partition = first.fields[0]?.[0] as string;
    return fc
      .record({
        items: fc.tuple(...Array.from({ length: n }, (_, i) => item(i))),
        where: fc.option(cond(inner), { nil: undefined }),
        prewhere: fc.option(cond({ ...inner, depth: 0, sources: [first] }), { freq: 8, nil: undefined }),
        window: fc.boolean(),
        order: fc.boolean(),
        limit: fc.option(fc.integer({ min: 0, max: 60000 }), { nil: undefined }),
        distinct: fc.boolean(),
      })
      .map(({ items, where, prewhere, window, order, limit, distinct }) => {
        const aggregated = items.map((i) => AGGREGATE_ITEM.test(i.t));
        const hasAgg = aggregated.some(Boolean);
        const grouped = items.flatMap((_, i) => (aggregated[i] ? [] : [`c${i}`]));
        const all = [...items];
        if (window && !hasAgg) {
          const w: Expr = {
            node: 'WindowFunction',
            name: 'row_number',
            exprs: [],
            args: [],
            over_expr: { node: 'WindowExpr', partition_by: [fieldNode(`${first.alias}.${partition}`)] },
          };
          all.push({
            t: `row_number() OVER (PARTITION BY ${first.alias}.${partition}) AS w`,
            a: { node: 'Alias', alias: 'w', expr: w },
          });
        }
        const usePrewhere = prewhere && !join.next_join && join.table?.node === 'Field';
        const groupBy = hasAgg && grouped.length ? grouped : undefined;
        const text = [
          ctes.length ? `WITH ${ctes.map((c) => c.t).join(', ')}` : '',
          `SELECT ${distinct ? 'DISTINCT ' : ''}${all.map((x) => x.t).join(', ')}`,
          `FROM ${from}`,
          usePrewhere ? `PREWHERE ${prewhere.t}` : '',
          where ? `WHERE ${where.t}` : '',
          groupBy ? `GROUP BY ${groupBy.join(', ')}` : '',
          order ? 'ORDER BY c0' : '',
          limit !== undefined ? `LIMIT ${limit}` : '',
        ];
        const ast: SelectQuery = {
          node: 'SelectQuery',
          ctes: ctes.length ? ctes.map((c) => c.a) : null,
          select: all.map((x) => x.a),
          distinct: distinct || null,
          select_from: join,
          prewhere: usePrewhere ? prewhere.a : null,
          where: where?.a ?? null,
          group_by: groupBy ? groupBy.map((c) => field(c)) : null,
          order_by: order ? [{ node: 'OrderExpr', expr: field('c0'), order: 'ASC' }] : null,
          limit: limit === undefined ? null : constant(limit),
        };
        return { t: text.filter(Boolean).join(' '), a: ast as SelectQuery | SelectSetQuery };
      });
  });
  if (ctx.depth < 1) return single;
  const setOp = fc
    .tuple(single, fc.constantFrom<SetOperator>('UNION ALL', 'UNION DISTINCT', 'INTERSECT', 'EXCEPT'), single)
    .map(([a, op, b]) => ({
      t: `${a.t} ${op} ${b.t}`,
      a: {
        node: 'SelectSetQuery',
        initial_select_query: a.a,
        subsequent_select_queries: [{ node: 'SelectSetNode', select_query: b.a, set_operator: op }],
      } as SelectSetQuery,
    }));
  return fc.oneof({ weight: 4, arbitrary: single }, { weight: 1, arbitrary: setOp });
}

const queries = (wild: boolean, depth = 2) =>
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom<T>('str', 'num', 'dt'))
    .chain(([n, ty]) => select({ sources: [], depth, wild }, n, ty));

// ---------------------------------------------------------------------------------------------
// Reading the printed SQL: one scope per SELECT, with its table reads, WHERE and PREWHERE.

interface Tok {
  text: string;
  start: number;
  end: number;
  group?: Tok[];
}

function tokenize(sql: string): Tok[] {
  const root: Tok[] = [];
  const stack: Tok[][] = [root];
  const re =
    /`(?:[^`\\]|\\.)*`|'(?:[^'\\]|\\.)*'|\{[a-z_0-9]+:[A-Za-z()0-9]+\}|[A-Za-z_$][A-Za-z0-9_$]*|\d+(?:\.\d+)?(?:e[+-]?\d+)?|->|[(),.]|\S/g;
  for (const m of sql.matchAll(re)) {
    const tok: Tok = { text: m[0], start: m.index, end: m.index + m[0].length };
    const top = stack[stack.length - 1] as Tok[];
    if (tok.text === '(') {
      tok.group = [];
      top.push(tok);
      stack.push(tok.group);
    } else if (tok.text === ')') {
      stack.pop();
      const parent = stack[stack.length - 1] as Tok[];
      (parent[parent.length - 1] as Tok).end = tok.end;
    } else top.push(tok);
  }
  expect(stack).toHaveLength(1);
  return root;
}

const CLAUSE_END = new Set([
  'GROUP',
  'HAVING',
  'WINDOW',
  'QUALIFY',
  'ORDER',
  'LIMIT',
  'SETTINGS',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'WHERE',
  'PREWHERE',
]);
const SET_OPS = new Set(['UNION', 'INTERSECT', 'EXCEPT']);

/** Every SELECT scope in `toks` (the members of set operations separately), outermost first. */
function scopes(toks: Tok[], out: Tok[][] = []): Tok[][] {
  if (toks[0]?.text === 'SELECT') {
    let member: Tok[] = [];
    for (const t of toks) {
      if (SET_OPS.has(t.text)) {
        out.push(member);
        member = [];
      } else if (!(member.length === 0 && (t.text === 'ALL' || t.text === 'DISTINCT') && out.length))
        member.push(t);
    }
    out.push(member);
  }
  for (const t of toks) if (t.group) scopes(t.group, out);
  return out;
}

/** Top-level conjuncts of a clause: `and(a, b)` → [a, b]; anything else → [it]. */
function conjuncts(sql: string, scope: Tok[], keyword: string): string[] | undefined {
  const at = scope.findIndex((t) => t.text === keyword);
  if (at < 0) return undefined;
  const rest: Tok[] = [];
  for (const t of scope.slice(at + 1)) {
    if (CLAUSE_END.has(t.text)) break;
    rest.push(t);
  }
  const [head, group] = rest;
  if (rest.length === 2 && head?.text === 'and' && group?.group) {
    const parts: string[] = [];
    let from = group.start + 1;
    for (const t of group.group) {
      if (t.text === ',') {
        parts.push(sql.slice(from, t.start).trim());
        from = t.end;
      }
    }
    parts.push(sql.slice(from, group.end - 1).trim());
    return parts;
  }
  return [sql.slice(rest[0]?.start ?? 0, rest[rest.length - 1]?.end ?? 0).trim()];
}

const PHYSICAL = new Set([
  'events',
  'person',
  'person_distinct_id2',
  'groups',
  'sessions',
  'session_replay_events',
]);
/** Functions the printer itself emits (operators, property access, null-safe comparisons, casts). */
const PRINTER_FUNCTIONS = new Set([
  'equals',
  'notEquals',
  'less',
  'greater',
  'lessOrEquals',
  'greaterOrEquals',
  'like',
  'ilike',
  'notLike',
  'notILike',
  'in',
  'notIn',
  'match',
  'concat',
  'and',
  'or',
  'not',
  'plus',
  'minus',
  'multiply',
  'divide',
  'modulo',
  'ifNull',
  'isNull',
  'isNotNull',
  'tuple',
  'arrayElement',
  'tupleElement',
  'replaceRegexpAll',
  'nullIf',
  'JSONExtractRaw',
  'toTimeZone',
  'least',
  'numbers',
  'accurateCastOrNull',
  'toInt64',
  'toFloat64',
  'toDate',
  'toDateTime',
  'toBool',
  'toUUID',
  'toString',
  'now64',
  'parseDateTime64BestEffortOrNull',
  'toDateTime64',
  'toStartOfWeek',
  'dateDiff',
]);
const forbidden = new Set(FORBIDDEN_FUNCTIONS);
/** ClickHouse names the allowlist prints (a remap prints another name than the HogQL one). */
const PRINTED_NAMES = new Set(
  Object.values(FUNCTION_CATEGORIES).flatMap((t) => Object.values(t).map((def) => def.clickhouse)),
);
const allowedName = (name: string) =>
  !forbidden.has(name) && (PRINTER_FUNCTIONS.has(name) || PRINTED_NAMES.has(name) || !!findFunction(name));

/** The structural guarantees, checked on the printed SQL of one query. */
function assertSafeSql(sql: string): void {
  const dbName = db.store.database;
  const settingsAt = sql.lastIndexOf(' SETTINGS ');
  const body = sql.slice(0, settingsAt);
  const settings = sql.slice(settingsAt);
  const toks = tokenize(body);
  let reads = 0;
  for (const scope of scopes(toks)) {
    const aliases: string[] = [];
    scope.forEach((t, i) => {
      const [dot, table, as, alias] = scope.slice(i + 1, i + 5);
      if (t.text.startsWith('`') && dot?.text === '.' && as?.text === 'AS' && table && alias) {
        expect(t.text).toBe(`\`${dbName}\``);
        expect(PHYSICAL.has(table.text.slice(1, -1))).toBe(true);
        // The engine applies the team filter to the table before anything else reads it.
        expect(settings).toContain(`'${dbName}.${table.text.slice(1, -1)}': 'team_id = ${TEAM}'`);
        aliases.push(alias.text);
      }
    });
    reads += aliases.length;
    if (!aliases.length) continue;
    const where = conjuncts(body, scope, 'WHERE');
    for (const a of aliases)
      expect(where, `no guard for ${a} in ${body}`).toContain(`equals(${a}.team_id, ${TEAM})`);
    const prewhere = conjuncts(body, scope, 'PREWHERE');
    if (prewhere) expect(prewhere[0]).toBe(`equals(${aliases[0]}.team_id, ${TEAM})`);
  }
  // Every physical table named anywhere was seen inside some SELECT scope.
  expect(body.split(`\`${dbName}\`.`).length - 1).toBe(reads);
  const walk = (ts: Tok[]) =>
    ts.forEach((t, i) => {
      const next = ts[i + 1];
      if (next?.group && next.start === t.end && /^[A-Za-z_]/.test(t.text)) {
        expect(allowedName(t.text), `function ${t.text} is not allowlisted`).toBe(true);
      }
      if (t.group) walk(t.group);
    });
  walk(toks);
}

const compileFor = (q: string | AnySelect, options: Partial<CompileOptions> = {}) =>
  compileSelect(q, {
    teamId: TEAM,
    timezone: 'UTC',
    weekStartDay: 0,
    table: (t) => db.store.table(t),
    ...options,
  });

describe('the SQL checks themselves', () => {
  const sql = (body: string) => {
    const d = db.store.database;
    const filters = `'${d}.events': 'team_id = 1', '${d}.person': 'team_id = 1'`;
    return `${body.replaceAll('DB.', `\`${d}\`.`)} SETTINGS readonly=2, additional_table_filters={${filters}}`;
  };
  const good =
    'SELECT a.event AS event FROM DB.`events` AS a FINAL JOIN (SELECT b.id AS id FROM DB.`person` AS b WHERE equals(b.team_id, 1)) AS s ON equals(a.uuid, s.id) WHERE and(equals(a.team_id, 1), notEquals(a.event, {hogql_val_0:String}))';

  it('accept a guarded query', () => {
    assertSafeSql(sql(good));
  });

  it.each([
    [
      'a joined table without its guard',
      'SELECT 1 FROM DB.`events` AS a JOIN DB.`person` AS b ON 1 WHERE equals(a.team_id, 1)',
    ],
    [
      'the guard of a subquery table in the outer WHERE',
      'SELECT 1 FROM (SELECT 1 FROM DB.`person` AS b) AS s WHERE equals(b.team_id, 1)',
    ],
    ['a guard inside an OR', 'SELECT 1 FROM DB.`events` AS a WHERE or(equals(a.team_id, 1), 1)'],
    [
      'a guard in ON only',
      'SELECT 1 FROM DB.`events` AS a JOIN DB.`person` AS b ON equals(b.team_id, 1) WHERE equals(a.team_id, 1)',
    ],
    ['another team', 'SELECT 1 FROM DB.`events` AS a WHERE equals(a.team_id, 2)'],
    ['an undeclared table', 'SELECT 1 FROM DB.`secrets` AS a WHERE equals(a.team_id, 1)'],
    ['another database', 'SELECT 1 FROM `system`.`one` AS a WHERE equals(a.team_id, 1)'],
    ['a table without its engine filter', 'SELECT 1 FROM DB.`groups` AS a WHERE equals(a.team_id, 1)'],
    ['a forbidden function', 'SELECT sleep(1) FROM DB.`events` AS a WHERE equals(a.team_id, 1)'],
    ['an unknown function', 'SELECT fooBar(1) FROM DB.`events` AS a WHERE equals(a.team_id, 1)'],
    [
      'PREWHERE without the guard first',
      'SELECT 1 FROM DB.`events` AS a PREWHERE 1 WHERE equals(a.team_id, 1)',
    ],
  ])('reject %s', (_name, body) => {
    expect(() => assertSafeSql(sql(body))).toThrow();
  });
});

describe('random queries over the schema', () => {
  it('print a team guard in the WHERE of every SELECT that reads a table, and only allowlisted calls', () => {
    let compiled = 0;
    let total = 0;
    fc.assert(
      fc.property(queries(true), fc.boolean(), (q, inlineStrings) => {
        total++;
        let sql: string;
        try {
          sql = compileFor(q.a, { inlineStrings }).sql;
        } catch (error) {
          // Random calls may not fit (`toDecimal` wants a constant scale): a user error, never a crash.
          expect(isExposed(error), `${q.t}\n${String(error)}`).toBe(true);
          return;
        }
        compiled++;
        assertSafeSql(sql);
      }),
      { numRuns: 500, seed: Number(process.env.HOGQL_PROPERTY_SEED ?? 4242) },
    );
    expect(compiled / total).toBeGreaterThan(0.7);
  });

  it('run on two teams, parsed from text, without returning the other team’s rows', async () => {
    const sample = fc.sample(queries(false, 1), {
      numRuns: 30,
      seed: Number(process.env.HOGQL_PROPERTY_SEED ?? 77),
    });
    let ran = 0;
    for (const { t: q } of sample) {
      const c = compileFor(q);
      assertSafeSql(c.sql);
      try {
        const r = await db.store.queryRows(c.sql, { params: c.params });
        const text = JSON.stringify(r);
        expect(text, q).not.toContain(SECRET);
        expect(text, q).not.toContain(P_OTHER);
        ran++;
      } catch (error) {
        if ((error as Error).name === 'AssertionError') throw error;
        expect(classifyEngineError(error), `${q}\n${String(error)}`).toBeDefined();
        expect(String(error)).not.toContain(SECRET);
        // chDB hands a failed query's output to the next one (see test/hogql/adversarial.test.ts).
        await db.store.queryRows('SELECT 1').catch(() => {});
      }
    }
    expect(ran).toBeGreaterThan(sample.length / 2);
  });
});
