import fc from 'fast-check';
import { expr, windowSpec } from './hogql-generator.js';
import { comma, name, TABLES, type Tokens } from './hogql-generator-atoms.js';

/** SELECT queries for the differential tests: tables, joins, CTEs and every clause (see hogql-generator.ts). */

const JOIN_OPS = [
  'join',
  'inner join',
  'left join',
  'left outer join',
  'right join',
  'full outer join',
  'left any join',
  'any inner join',
  'asof left join',
  'left semi join',
  'anti join',
  'cross join',
  ',',
];

function tableExpr(depth: number): fc.Arbitrary<Tokens> {
  const base = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...TABLES).map((t) => [t]) },
    { weight: 1, arbitrary: fc.constant<Tokens>(['{', 'table', '}']) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('numbers', 'generateSeries'), fc.integer({ min: 1, max: 9 }))
        .map(([f, n]) => [f, '(', String(n), ')']),
    },
    ...(depth > 0 ? [{ weight: 2, arbitrary: select(depth - 1).map((q) => ['(', ...q, ')']) }] : []),
  );
  return fc
    .tuple(
      base,
      fc.option(fc.tuple(fc.boolean(), fc.constantFrom('e', 'p', 's', 'sub'))),
      fc.boolean(),
      fc.option(
        fc.constantFrom<Tokens>(
          ['sample', '0.1'],
          ['sample', '1', '/', '10'],
          ['sample', '10', 'offset', '2'],
        ),
      ),
    )
    .map(([t, alias, final, sample]) => [
      ...t,
      ...(alias ? (alias[0] ? ['as', alias[1]] : [alias[1]]) : []),
      ...(final ? ['final'] : []),
      ...(sample ?? []),
    ]);
}

function fromClause(depth: number): fc.Arbitrary<Tokens> {
  const sub = expr(1);
  return fc
    .tuple(
      tableExpr(depth),
      fc.array(
        fc.tuple(
          fc.constantFrom(...JOIN_OPS),
          tableExpr(depth),
          fc.oneof(
            sub.map((e) => ['on', ...e]),
            fc.constant<Tokens>(['using', 'x']),
          ),
        ),
      ),
    )
    .map(([first, joins]) => {
      const out = [...first];
      for (const [op, table, constraint] of joins.slice(0, 3)) {
        out.push(...op.split(' '), ...table);
        if (op !== ',' && op !== 'cross join') out.push(...constraint);
      }
      return out;
    });
}

/** SELECT queries with a random subset of clauses, possibly combined with UNION and friends. */
export function select(depth: number): fc.Arbitrary<Tokens> {
  const e = expr(Math.min(depth + 1, 2));
  const column = fc.oneof(
    { weight: 6, arbitrary: e },
    { weight: 2, arbitrary: fc.tuple(e, name).map(([x, n]) => [...x, 'as', n]) },
    {
      weight: 1,
      arbitrary: fc.tuple(e, fc.constantFrom('total', 'c', '`the name`')).map(([x, n]) => [...x, n]),
    },
    { weight: 1, arbitrary: fc.constant<Tokens>(['*']) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Tokens>(['e', '.', '*'], ['count', '(', ')'], ['count', '(', '*', ')']),
    },
  );
  const single = fc
    .record({
      ctes:
        depth > 0
          ? fc.option(
              fc.array(
                fc.oneof(
                  select(depth - 1).map((q) => ['cte1', 'as', '(', ...q, ')']),
                  e.map((x) => [...x, 'as', 'c1']),
                ),
                { minLength: 1, maxLength: 2 },
              ),
              { freq: 6 },
            )
          : fc.constant(null),
      distinct: fc.boolean(),
      columns: fc.array(column, { minLength: 1, maxLength: 4 }),
      trailingComma: fc.boolean(),
      from: fc.option(fromClause(depth), { freq: 2 }),
      arrayJoin: fc.option(fc.tuple(fc.constantFrom('array join', 'left array join'), e), { freq: 10 }),
      prewhere: fc.option(e, { freq: 10 }),
      where: fc.option(e, { freq: 2 }),
      groupBy: fc.option(
        fc.oneof(
          fc.array(e, { minLength: 1, maxLength: 2 }).map(comma),
          fc.constant<Tokens>(['all']),
          e.map((x) => ['rollup', '(', ...x, ')']),
        ),
        { freq: 3 },
      ),
      withTotals: fc.option(fc.constantFrom<Tokens>(['with', 'totals'], ['with', 'rollup']), { freq: 8 }),
      having: fc.option(e, { freq: 5 }),
      qualify: fc.option(e, { freq: 10 }),
      window: fc.option(
        windowSpec(e).filter((s) => s[0] === '('),
        { freq: 10 },
      ),
      orderBy: fc.option(
        fc.array(fc.tuple(e, fc.constantFrom('', 'asc', 'desc', 'desc nulls last', 'nulls first')), {
          minLength: 1,
          maxLength: 2,
        }),
        { freq: 2 },
      ),
      limitBy: fc.option(fc.tuple(fc.integer({ min: 1, max: 5 }), e), { freq: 10 }),
      limit: fc.option(
        fc.constantFrom<Tokens>(
          ['limit', '10'],
          ['limit', '10', 'offset', '5'],
          ['limit', '5', ',', '10'],
          ['limit', '3', 'with', 'ties'],
          ['offset', '2'],
        ),
        { freq: 2 },
      ),
    })
    .map((q) => {
      const out: Tokens = [];
      if (q.ctes) out.push('with', ...comma(q.ctes));
      out.push('select');
      if (q.distinct) out.push('distinct');
      out.push(...comma(q.columns));
      if (q.trailingComma && q.from) out.push(',');
      if (q.from) {
        out.push('from', ...q.from);
        if (q.arrayJoin) out.push(...q.arrayJoin[0].split(' '), ...q.arrayJoin[1], 'as', 'arr');
      }
      if (q.prewhere) out.push('prewhere', ...q.prewhere);
      if (q.where) out.push('where', ...q.where);
      if (q.groupBy) out.push('group', 'by', ...q.groupBy);
      if (q.groupBy && q.withTotals) out.push(...q.withTotals);
      if (q.having) out.push('having', ...q.having);
      if (q.qualify) out.push('qualify', ...q.qualify);
      if (q.window) out.push('window', 'w', 'as', ...q.window);
      if (q.orderBy)
        out.push('order', 'by', ...comma(q.orderBy.map(([x, d]) => [...x, ...d.split(' ').filter(Boolean)])));
      if (q.limitBy) out.push('limit', String(q.limitBy[0]), 'by', ...q.limitBy[1]);
      if (q.limit) out.push(...q.limit);
      return out;
    });
  if (depth <= 0) return single;
  return fc.oneof(
    { weight: 4, arbitrary: single },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          single,
          fc.array(
            fc.tuple(
              fc.constantFrom('union all', 'union distinct', 'union', 'intersect', 'except'),
              fc.boolean(),
              single,
            ),
            { minLength: 1, maxLength: 2 },
          ),
        )
        .map(([first, rest]) => [
          ...first,
          ...rest.flatMap(([op, parens, q]) => [...op.split(' '), ...(parens ? ['(', ...q, ')'] : q)]),
        ]),
    },
  );
}
