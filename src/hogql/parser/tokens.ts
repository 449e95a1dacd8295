/**
 * Token kinds of the HogQL lexer. Numbers rather than strings so that the parser's hot comparisons
 * are integer compares; `KEYWORDS` maps the lowercase spelling of every keyword to its kind.
 */
export const T = {
  EOF: 0,
  IDENT: 1,
  QUOTED_IDENT: 2,
  STRING: 3,
  FLOAT: 4, // 1e5, 1.5e3, .5e1, hex floats: the lexer already joined the parts
  DECIMAL: 5,
  OCTAL: 6,
  HEX: 7,
  BINARY: 8,
  OCTAL_PREFIX: 9, // 0o17: lexed so that the parser can reject it with a clear message
  ARROW: 10,
  ASTERISK: 11,
  DOUBLECOLON: 12,
  COLONEQUALS: 13,
  COLON: 14,
  COMMA: 15,
  CONCAT: 16,
  DASH: 17,
  DOT: 18,
  EQ_DOUBLE: 19,
  EQ_SINGLE: 20,
  GT_EQ: 21,
  GT: 22,
  HASH: 23,
  IREGEX_SINGLE: 24,
  IREGEX_DOUBLE: 25,
  LBRACE: 26,
  LBRACKET: 27,
  LPAREN: 28,
  LT_EQ: 29,
  LT: 30,
  NOT_EQ: 31,
  NOT_IREGEX: 32,
  NOT_REGEX: 33,
  NULL_PROPERTY: 34,
  NULLISH: 35,
  PERCENT: 36,
  PLUS: 37,
  QUERY: 38,
  REGEX_SINGLE: 39,
  REGEX_DOUBLE: 40,
  RBRACE: 41,
  RBRACKET: 42,
  RPAREN: 43,
  SEMICOLON: 44,
  SLASH: 45,
  NULLSAFE_EQ: 46,
  SLASH_GT: 47, // '/>' closes a self-closing HogQLX tag; anywhere else it is an error
  LT_SLASH: 48, // '</' opens a closing HogQLX tag
  TAG_OPEN: 49, // '<' that starts a HogQLX tag
  TAG_TEXT: 50, // text between HogQLX tags
  TEMPLATE_START: 51, // f'
  TEMPLATE_TEXT: 52,
  TEMPLATE_EXPR: 53, // '{' inside a template string
  TEMPLATE_END: 54,
  // keywords
  ALL: 100,
  AND: 101,
  ANTI: 102,
  ANY: 103,
  ARRAY: 104,
  AS: 105,
  ASCENDING: 106,
  ASOF: 107,
  BETWEEN: 108,
  BOTH: 109,
  BY: 110,
  CASE: 111,
  CAST: 112,
  CATCH: 113,
  COHORT: 114,
  COLLATE: 115,
  COLUMNS: 116,
  CROSS: 117,
  CUBE: 118,
  CURRENT: 119,
  DATE: 120,
  DAY: 121,
  DESC: 122,
  DESCENDING: 123,
  DISTINCT: 124,
  ELSE: 125,
  END: 126,
  EXCEPT: 127,
  EXCLUDE: 128,
  EXTRACT: 129,
  FINAL: 130,
  FILL: 131,
  FILTER: 132,
  FINALLY: 133,
  FIRST: 134,
  FN: 135,
  FOLLOWING: 136,
  FOR: 137,
  FROM: 138,
  FULL: 139,
  FUN: 140,
  GROUP: 141,
  GROUPING: 142,
  HAVING: 143,
  HOUR: 144,
  ID: 145,
  IF: 146,
  ILIKE: 147,
  IGNORE: 148,
  INCLUDE: 149,
  IN: 150,
  INF: 151,
  INNER: 152,
  INTERSECT: 153,
  INTERPOLATE: 154,
  INTERVAL: 155,
  IS: 156,
  JOIN: 157,
  KEY: 158,
  LAMBDA: 159,
  LAST: 160,
  LEADING: 161,
  LEFT: 162,
  LET: 163,
  LIKE: 164,
  LIMIT: 165,
  LOCAL: 166,
  MATERIALIZED: 167,
  MINUTE: 168,
  MONTH: 169,
  NAME: 170,
  NATURAL: 171,
  NAN: 172,
  NOT: 173,
  NULL: 174,
  NULLS: 175,
  OFFSET: 176,
  ON: 177,
  OR: 178,
  ORDER: 179,
  OUTER: 180,
  OVER: 181,
  PARTITION: 182,
  PIVOT: 183,
  POSITIONAL: 184,
  PRECEDING: 185,
  PREWHERE: 186,
  QUALIFY: 187,
  QUARTER: 188,
  RANGE: 189,
  RECURSIVE: 190,
  REPLACE: 191,
  RETURN: 192,
  RIGHT: 193,
  ROLLUP: 194,
  ROW: 195,
  ROWS: 196,
  SAMPLE: 197,
  SECOND: 198,
  SELECT: 199,
  SEMI: 200,
  SETS: 201,
  SETTINGS: 202,
  STEP: 203,
  SUBSTRING: 204,
  THEN: 205,
  THROW: 206,
  TIES: 207,
  TIME: 208,
  TIMESTAMP: 209,
  TO: 210,
  TOP: 211,
  TOTALS: 212,
  TRAILING: 213,
  TRIM: 214,
  TRUNCATE: 215,
  TRY: 216,
  TRY_CAST: 217,
  UNBOUNDED: 218,
  UNION: 219,
  UNPIVOT: 220,
  USING: 221,
  VALUES: 222,
  WEEK: 223,
  WHEN: 224,
  WHERE: 225,
  WHILE: 226,
  WINDOW: 227,
  WITH: 228,
  WITHIN: 229,
  YEAR: 230,
  ZONE: 231,
} as const;

export type TokenType = (typeof T)[keyof typeof T];

const FIRST_KEYWORD = T.ALL;

/** Keywords that never act as identifiers (everything else may name a column, table or alias). */
const RESERVED: ReadonlySet<number> = new Set([
  T.CATCH,
  T.EXCEPT,
  T.FINALLY,
  T.FN,
  T.FUN,
  T.INTERSECT,
  T.LET,
  T.MATERIALIZED,
  T.THROW,
  T.TRY,
  T.WHILE,
  T.WITHIN,
  T.INF,
  T.NAN,
  T.NULL,
]);

export const KEYWORDS: ReadonlyMap<string, TokenType> = (() => {
  const map = new Map<string, TokenType>();
  for (const [name, type] of Object.entries(T)) {
    if (type >= FIRST_KEYWORD) map.set(name.toLowerCase(), type);
  }
  map.set('asc', T.ASCENDING);
  map.set('infinity', T.INF);
  map.set('yyyy', T.YEAR);
  return map;
})();

/** Kinds that the grammar accepts wherever it wants an identifier. */
const IDENTIFIER_LIKE: boolean[] = (() => {
  const out: boolean[] = [];
  out[T.IDENT] = true;
  out[T.QUOTED_IDENT] = true;
  for (const type of KEYWORDS.values()) if (!RESERVED.has(type)) out[type] = true;
  return out;
})();

export const isIdentifierLike = (type: number): boolean => IDENTIFIER_LIKE[type] === true;

export const isKeyword = (type: number): boolean => type >= FIRST_KEYWORD;

/** SECOND … YEAR: the units `INTERVAL n unit` accepts. */
export const INTERVAL_UNITS: ReadonlyMap<number, string> = new Map<number, string>([
  [T.SECOND, 'Second'],
  [T.MINUTE, 'Minute'],
  [T.HOUR, 'Hour'],
  [T.DAY, 'Day'],
  [T.WEEK, 'Week'],
  [T.MONTH, 'Month'],
  [T.QUARTER, 'Quarter'],
  [T.YEAR, 'Year'],
]);
