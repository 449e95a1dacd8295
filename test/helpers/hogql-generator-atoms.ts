import fc from 'fast-check';

/** Names, literals and operators for the HogQL generators (hogql-generator.ts). */

export type Tokens = string[];

export const NAMES = [
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
export const KEYWORD_NAMES = [
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
export const QUOTED_NAMES = ['`a b`', '"col"', '`$browser`', '"x""y"', '`sel``ect`'];
export const FUNCTIONS = [
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
export const TABLES = ['events', 'persons', 'sessions', 'groups', 'person_distinct_ids', 't'];
export const PROPERTIES = ['$browser', '$os', 'email', 'plan', '$current_url', 'a b'];

const keywordCase = (word: string) =>
  fc.constantFrom(
    word.toLowerCase(),
    word.toUpperCase(),
    word[0]?.toUpperCase() + word.slice(1).toLowerCase(),
  );

/** A keyword in random letter case; several words become several tokens. */
export const kw = (words: string): fc.Arbitrary<Tokens> => fc.tuple(...words.split(' ').map(keywordCase));

export const name = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 2, arbitrary: fc.constantFrom(...KEYWORD_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom(...QUOTED_NAMES) },
);

export const stringLiteral = fc
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

export const literal: fc.Arbitrary<Tokens> = fc.oneof(
  { weight: 4, arbitrary: number.map((n) => [n]) },
  { weight: 4, arbitrary: stringLiteral.map((s) => [s]) },
  { weight: 1, arbitrary: fc.constantFrom('null', 'NULL', 'true', 'false', 'TRUE').map((s) => [s]) },
);

export const field: fc.Arbitrary<Tokens> = fc.oneof(
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

export const BINARY = [
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
export const WORD_BINARY = [
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

export const comma = (items: Tokens[]): Tokens =>
  items.flatMap((item, i) => (i === 0 ? item : [',', ...item]));

export const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];
export const TYPES = [
  'String',
  'Int64',
  'Float64',
  'DateTime',
  'Nullable(String)',
  'Array(Int64)',
  'Decimal(10, 2)',
  'timestamp',
];
