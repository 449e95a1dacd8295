import fc from 'fast-check';

import {
  BINARY,
  comma,
  FUNCTIONS,
  field,
  kw,
  literal,
  NAMES,
  name,
  stringLiteral,
  type Tokens,
  TYPES,
  UNITS,
  WORD_BINARY,
} from './hogql-generator-atoms.js';

export { select } from './hogql-generator-select.js';
export type { Tokens };

/**
 * Grammar-aware generators of HogQL text for the differential tests. Queries are built as token
 * lists and joined with random whitespace and comments so that positions get exercised too.
 * Nesting stays shallow: the reference parser slows down badly with deep nesting.
 */

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

export function windowSpec(sub: fc.Arbitrary<Tokens>): fc.Arbitrary<Tokens> {
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
