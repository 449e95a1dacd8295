import fc from 'fast-check';

/**
 * Grammar-aware generators of HogQL text for the differential tests. Queries are built as token
 * lists and joined with random whitespace and comments so that positions get exercised too.
 * Nesting stays shallow: the reference parser slows down badly with deep nesting.
 */

type Tokens = string[];

const NAMES = [
  'event',
  'timestamp',
  'properties',
  'person_id',
  'distinct_id',
  'uuid',
  'x',
  'y',
  'e',
  'a',
  'b1',
  '_c',
  '$d',
];
// keywords that are commonly used as names
const KEYWORD_NAMES = [
  'date',
  'id',
  'key',
  'name',
  'first',
  'last',
  'value',
  'type',
  'status',
  'year',
  'day',
  'month',
];
const QUOTED_NAMES = ['`a b`', '"col"', '`$browser`', '"x""y"', '`sel``ect`'];
const FUNCTIONS = [
  'count',
  'sum',
  'avg',
  'toDate',
  'now',
  'lower',
  'concat',
  'if',
  'arrayMap',
  'JSONExtractString',
  'quantile',
  'uniq',
  'toStartOfDay',
  'coalesce',
];
const TABLES = ['events', 'persons', 'sessions', 'groups', 'person_distinct_ids', 't'];
const PROPERTIES = ['$browser', '$os', 'email', 'plan', '$current_url', 'a b'];

const keywordCase = (word: string) =>
  fc.constantFrom(
    word.toLowerCase(),
    word.toUpperCase(),
    word[0]?.toUpperCase() + word.slice(1).toLowerCase(),
  );

/** A keyword in random letter case; several words become several tokens. */
const kw = (words: string): fc.Arbitrary<Tokens> => fc.tuple(...words.split(' ').map(keywordCase));

const name = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...KEYWORD_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...QUOTED_NAMES) },
);

const stringLiteral = fc
  .array(
    fc.oneof(
      {
        weight: 8,
        arbitrary: fc.constantFrom('a', 'b', ' ', '%', '$pageview', 'x y', '{', '}', '"', '🍄', 'é', '\n'),
      },
      { weight: 1, arbitrary: fc.constantFrom("''", "\\'", '\\n', '\\t', '\\\\', '\\0', '\\x41', '\\N') },
    ),
    { maxLength: 6 },
  )
  .map((parts) => `'${parts.join('')}'`);

const number = fc.oneof(
  fc.integer({ min: 0, max: 1000 }).map(String),
  fc.constantFrom(
    '0',
    '1',
    '-1',
    '1.5',
    '-2.25',
    '0.1',
    '1e3',
    '1E-5',
    '2.5e+10',
    '.5',
    '5.',
    '0x1F',
    '0b101',
    '017',
  ),
  fc.constantFrom('inf', '-inf', 'nan', '9223372036854775807', '9223372036854775808', '1e400', '-0.0'),
);

const literal: fc.Arbitrary<Tokens> = fc.oneof(
  { weight: 4, arbitrary: number.map((n) => [n]) },
  { weight: 4, arbitrary: stringLiteral.map((s) => [s]) },
  { weight: 1, arbitrary: fc.constantFrom('null', 'NULL', 'true', 'false', 'TRUE').map((s) => [s]) },
);

const field: fc.Arbitrary<Tokens> = fc.oneof(
  { weight: 5, arbitrary: name.map((n) => [n]) },
  { weight: 3, arbitrary: fc.tuple(name, name).map(([a, b]) => [a, '.', b]) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(...PROPERTIES)
      .map((p) => ['properties', '.', p.includes(' ') ? `\`${p}\`` : p]),
  },
  { weight: 1, arbitrary: fc.tuple(name, name, name).map(([a, b, c]) => [a, '.', b, '.', c]) },
);

const BINARY = [
  '+',
  '-',
  '*',
  '/',
  '%',
  '||',
  '=',
  '==',
  '!=',
  '<>',
  '<',
  '<=',
  '>',
  '>=',
  '=~',
  '!~',
  '=~*',
  '!~*',
  '??',
  '<=>',
];
const WORD_BINARY = [
  'and',
  'or',
  'like',
  'not like',
  'ilike',
  'not ilike',
  'in',
  'not in',
  'is distinct from',
  'is not distinct from',
];

const comma = (items: Tokens[]): Tokens => items.flatMap((item, i) => (i === 0 ? item : [',', ...item]));

const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];
const TYPES = [
  'String',
  'Int64',
  'Float64',
  'DateTime',
  'Nullable(String)',
  'Array(Int64)',
  'Decimal(10, 2)',
  'timestamp',
];

/** Expressions up to `depth` levels deep. */
export function expr(depth: number): fc.Arbitrary<Tokens> {
  if (depth <= 0) return fc.oneof({ weight: 3, arbitrary: literal }, { weight: 4, arbitrary: field });
  const sub = expr(depth - 1);
  const list = (max: number) => fc.array(sub, { minLength: 1, maxLength: max });
  const trailing = fc.constantFrom<Tokens>([], [], [','] as Tokens);
  return fc.oneof(
    { weight: 6, arbitrary: literal },
    { weight: 6, arbitrary: field },
    {
      weight: 5,
      arbitrary: fc.tuple(sub, fc.constantFrom(...BINARY), sub).map(([a, op, b]) => [...a, op, ...b]),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(
          sub,
          fc.constantFrom(...WORD_BINARY).chain((w) => kw(w)),
          sub,
        )
        .map(([a, op, b]) => [...a, ...op, ...b]),
    },
    { weight: 1, arbitrary: fc.tuple(kw('not'), sub).map(([n, a]) => [...n, ...a]) },
    { weight: 1, arbitrary: sub.map((a) => ['-', ...a]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(sub, kw('is'), fc.boolean(), kw('null'))
        .map(([a, is, not, n]) => [...a, ...is, ...(not ? ['not'] : []), ...n]),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(sub, fc.boolean(), sub, sub)
        .map(([a, not, lo, hi]) => [...a, ...(not ? ['not'] : []), 'between', ...lo, 'and', ...hi]),
    },
    { weight: 1, arbitrary: fc.tuple(sub, sub, sub).map(([c, a, b]) => [...c, '?', ...a, ':', ...b]) },
    { weight: 1, arbitrary: sub.map((a) => ['(', ...a, ')']) },
    { weight: 4, arbitrary: call(depth) },
    { weight: 1, arbitrary: windowCall(depth) },
    {
      weight: 1,
      arbitrary: fc.tuple(list(3), trailing).map(([items, t]) => ['[', ...comma(items), ...t, ']']),
    },
    { weight: 1, arbitrary: fc.constant<Tokens>(['[', ']']) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(sub, list(2), trailing)
        .map(([first, rest, t]) => ['(', ...first, ',', ...comma(rest), ...t, ')']),
    },
    { weight: 1, arbitrary: sub.map((a) => ['(', ...a, ',', ')']) },
    { weight: 1, arbitrary: fc.tuple(field, sub).map(([f, i]) => [...f, '[', ...i, ']']) },
    {
      weight: 1,
      arbitrary: fc.tuple(field, fc.integer({ min: 1, max: 3 })).map(([f, i]) => [...f, '.', String(i)]),
    },
    { weight: 1, arbitrary: fc.tuple(field, name).map(([f, n]) => [...f, '?.', n]) },
    { weight: 1, arbitrary: fc.tuple(field, stringLiteral).map(([f, s]) => [...f, '?.', '[', s, ']']) },
    {
      weight: 1,
      arbitrary: fc.tuple(field, fc.constantFrom(...NAMES)).map(([f, n]) => ['{', ...f, '}', '.', n]),
    },
    { weight: 1, arbitrary: field.map((f) => ['{', ...f, '}']) },
    {
      weight: 1,
      arbitrary: fc.tuple(sub, fc.constantFrom(...TYPES)).map(([a, t]) => ['cast', '(', ...a, 'as', t, ')']),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(field, fc.constantFrom('String', 'Int64', 'date', 'timestamp'))
        .map(([a, t]) => [...a, '::', t]),
    },
    { weight: 1, arbitrary: fc.tuple(sub, fc.constantFrom(...UNITS)).map(([a, u]) => ['interval', ...a, u]) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 30 }), fc.constantFrom(...UNITS))
        .map(([n, u]) => ['interval', `'${n} ${u}'`]),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.boolean(),
          sub,
          fc.array(fc.tuple(sub, sub), { minLength: 1, maxLength: 3 }),
          fc.option(sub),
        )
        .map(([subject, s, branches, otherwise]) => [
          'case',
          ...(subject ? s : []),
          ...branches.flatMap(([w, t]) => ['when', ...w, 'then', ...t]),
          ...(otherwise === null ? [] : ['else', ...otherwise]),
          'end',
        ]),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', 'y'), sub).map(([v, body]) => [v, '->', ...body]) },
    { weight: 1, arbitrary: sub.map((body) => ['(', 'x', ',', 'y', ')', '->', ...body]) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(stringLiteral, sub), { maxLength: 2 })
        .map((pairs) => ['{', ...comma(pairs.map(([k, v]) => [k, ':', ...v])), '}']),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(
          fc.oneof(
            fc.constantFrom('ab', ' ', 'x y').map((t) => [t]),
            field.map((f) => ['{', ...f, '}']),
          ),
          { maxLength: 3 },
        )
        .map((parts) => [`f'${parts.map((p) => (p.length === 1 ? p[0] : p.join(''))).join('')}'`]),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('both', 'leading', 'trailing'), stringLiteral, sub)
        .map(([side, s, a]) => ['trim', '(', side, s, 'from', ...a, ')']),
    },
    { weight: 1, arbitrary: fc.tuple(sub, name).map(([a, n]) => ['(', ...a, 'as', n, ')']) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((n) => [`#${n}`]) },
    { weight: 1, arbitrary: fc.tuple(sub, sub).map(([a, b]) => [...a, '[', ...b, ':', ']']) },
  );
}

function call(depth: number): fc.Arbitrary<Tokens> {
  const sub = expr(depth - 1);
  return fc
    .tuple(
      fc.constantFrom(...FUNCTIONS),
      fc.option(fc.array(literal, { minLength: 1, maxLength: 2 }), { freq: 5 }),
      fc.boolean(),
      fc.array(sub, { maxLength: 3 }),
      fc.option(fc.tuple(sub, fc.constantFrom('asc', 'desc', '')), { freq: 8 }),
      fc.option(sub, { freq: 8 }),
    )
    .map(([fn, params, distinct, args, orderBy, filter]) => {
      const out: Tokens = [fn];
      if (params) out.push('(', ...comma(params), ')');
      out.push('(');
      if (distinct && args.length > 0) out.push('distinct');
      out.push(...comma(args));
      if (orderBy && args.length > 0)
        out.push('order', 'by', ...orderBy[0], ...(orderBy[1] ? [orderBy[1]] : []));
      out.push(')');
      if (filter) out.push('filter', '(', 'where', ...filter, ')');
      return out;
    });
}

function windowCall(depth: number): fc.Arbitrary<Tokens> {
  const sub = expr(depth - 1);
  return fc
    .tuple(
      fc.constantFrom('row_number', 'lag', 'sum', 'first_value'),
      fc.array(sub, { maxLength: 2 }),
      windowSpec(sub),
    )
    .map(([fn, args, spec]) => [fn, '(', ...comma(args), ')', 'over', ...spec]);
}

function windowSpec(sub: fc.Arbitrary<Tokens>): fc.Arbitrary<Tokens> {
  const bound = fc.oneof(
    fc.constant<Tokens>(['unbounded', 'preceding']),
    fc.constant<Tokens>(['unbounded', 'following']),
    fc.constant<Tokens>(['current', 'row']),
    fc
      .integer({ min: 0, max: 5 })
      .chain((n) => fc.constantFrom<Tokens>([String(n), 'preceding'], [String(n), 'following'])),
  );
  return fc.oneof(
    fc.constantFrom<Tokens>(['w'], ['w2']),
    fc
      .tuple(
        fc.option(fc.array(sub, { minLength: 1, maxLength: 2 })),
        fc.option(
          fc.array(fc.tuple(sub, fc.constantFrom('', 'asc', 'desc')), { minLength: 1, maxLength: 2 }),
        ),
        fc.option(fc.tuple(fc.constantFrom('rows', 'range'), bound, fc.option(bound))),
      )
      .map(([partition, order, frame]) => {
        const out: Tokens = ['('];
        if (partition) out.push('partition', 'by', ...comma(partition));
        if (order) out.push('order', 'by', ...comma(order.map(([e, d]) => (d ? [...e, d] : e))));
        if (frame) {
          out.push(frame[0]);
          if (frame[2]) out.push('between', ...frame[1], 'and', ...frame[2]);
          else out.push(...frame[1]);
        }
        out.push(')');
        return out;
      }),
  );
}

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

const separator = fc.oneof(
  { weight: 20, arbitrary: fc.constant(' ') },
  { weight: 2, arbitrary: fc.constantFrom('  ', '\n', '\n  ', '\t') },
  { weight: 1, arbitrary: fc.constantFrom(' /* c */ ', ' -- c\n', '\r\n', ' // c\n') },
);

/** Joins tokens with random whitespace (always some, so that tokens never fuse). */
export function render(tokens: fc.Arbitrary<Tokens>): fc.Arbitrary<string> {
  return tokens.chain((toks) =>
    fc
      .array(separator, { minLength: toks.length, maxLength: toks.length })
      .map((seps) => toks.map((t, i) => (i === 0 ? t : seps[i] + t)).join('')),
  );
}

/** Valid-looking text with one token deleted, duplicated or replaced: mostly errors. */
export function mutate(tokens: fc.Arbitrary<Tokens>): fc.Arbitrary<string> {
  const junk = fc.constantFrom(
    '(',
    ')',
    ',',
    'select',
    'from',
    'and',
    '.',
    '[',
    '->',
    'as',
    "'",
    '1',
    'x',
    '::',
    '?',
    ':',
    '{',
    '}',
    'by',
    'join',
    'on',
    'not',
  );
  return tokens
    .chain((toks) =>
      fc.tuple(
        fc.constant(toks),
        fc.nat({ max: Math.max(0, toks.length - 1) }),
        fc.constantFrom('delete', 'duplicate', 'replace', 'insert'),
        junk,
      ),
    )
    .map(([toks, i, how, j]) => {
      const out = [...toks];
      if (how === 'delete') out.splice(i, 1);
      else if (how === 'duplicate') out.splice(i, 0, out[i] as string);
      else if (how === 'replace') out[i] = j;
      else out.splice(i, 0, j);
      return out.join(' ');
    });
}
