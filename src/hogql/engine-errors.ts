/**
 * Engine errors a user caused (a function given the wrong type, a division by zero, a query that
 * ran too long) are shown to them as PostHog does: 400 with the ClickHouse error name in snake
 * case as `code`. Everything else is internal: a 500 that reveals neither SQL nor paths.
 */
const USER_ERRORS: ReadonlyMap<string, number> = new Map([
  ['ILLEGAL_TYPE_OF_ARGUMENT', 43],
  ['NUMBER_OF_ARGUMENTS_DOESNT_MATCH', 42],
  ['TOO_FEW_ARGUMENTS_FOR_FUNCTION', 35],
  ['TOO_MANY_ARGUMENTS_FOR_FUNCTION', 34],
  ['TYPE_MISMATCH', 53],
  ['NO_COMMON_TYPE', 386],
  ['CANNOT_CONVERT_TYPE', 70],
  ['CANNOT_PARSE_TEXT', 6],
  ['CANNOT_PARSE_DATE', 38],
  ['CANNOT_PARSE_DATETIME', 41],
  ['CANNOT_PARSE_NUMBER', 72],
  ['CANNOT_PARSE_UUID', 376],
  ['CANNOT_PARSE_INPUT_ASSERTION_FAILED', 27],
  ['ILLEGAL_DIVISION', 153],
  ['ARGUMENT_OUT_OF_BOUND', 69],
  ['BAD_ARGUMENTS', 36],
  ['ILLEGAL_AGGREGATION', 184],
  ['NOT_AN_AGGREGATE', 215],
  ['ILLEGAL_COLUMN', 44],
  ['CANNOT_COMPILE_REGEXP', 427],
  ['UNKNOWN_IDENTIFIER', 47],
  ['AMBIGUOUS_IDENTIFIER', 207],
  ['AMBIGUOUS_COLUMN_NAME', 352],
  ['MULTIPLE_EXPRESSIONS_FOR_ALIAS', 179],
  ['TOO_DEEP_RECURSION', 306],
  ['TOO_DEEP_SUBQUERIES', 162],
  ['TOO_BIG_AST', 168],
  ['TOO_MANY_ROWS', 158],
  ['TOO_MANY_ROWS_OR_BYTES', 396],
  ['TIMEOUT_EXCEEDED', 159],
  ['MEMORY_LIMIT_EXCEEDED', 241],
  ['QUERY_WAS_CANCELLED', 394],
  ['DECIMAL_OVERFLOW', 407],
  ['ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER', 59],
  ['INVALID_JOIN_ON_EXPRESSION', 403],
  ['UNSUPPORTED_METHOD', 1],
  ['INCORRECT_QUERY', 80],
  ['SIZES_OF_ARRAYS_DONT_MATCH', 190],
  ['FUNCTION_THROW_IF_VALUE_IS_NON_ZERO', 395],
  ['VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE', 321],
  ['CANNOT_ALLOCATE_MEMORY', 173],
  ['TOO_LARGE_STRING_SIZE', 131],
  // A scalar subquery of the user's that returned several rows, or a NULL where it cannot go
  // (`transform(x, [(SELECT …)], …)` over an empty or multi-row result).
  ['INCORRECT_RESULT_OF_SCALAR_SUBQUERY', 125],
  ['CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN', 349],
  // Values and parameters the user wrote that the engine refused: base64Decode('!!!'),
  // quantile(2)(x), arrayResize([1], 1e11), JSONExtract(…, 'NotAType'), WITH FILL STEP 0, …
  ['INCORRECT_DATA', 117],
  ['PARAMETER_OUT_OF_BOUND', 12],
  ['TOO_LARGE_ARRAY_SIZE', 128],
  ['UNKNOWN_TYPE', 50],
  ['INVALID_WITH_FILL_EXPRESSION', 475],
  ['WITH_TIES_WITHOUT_ORDER_BY', 476],
  ['LIMIT_BY_WITH_TIES_IS_NOT_SUPPORTED', 498],
  ['UNION_ALL_RESULT_STRUCTURES_MISMATCH', 258],
  ['NUMBER_OF_COLUMNS_DOESNT_MATCH', 20],
  ['CANNOT_READ_ARRAY_FROM_TEXT', 130],
  ['CANNOT_PARSE_ESCAPE_SEQUENCE', 25],
  ['CANNOT_PARSE_QUOTED_STRING', 26],
  ['CANNOT_PARSE_BOOL', 467],
  ['CANNOT_PARSE_IPV4', 675],
  ['CANNOT_PARSE_IPV6', 676],
  ['CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING', 441],
  ['ILLEGAL_SYNTAX_FOR_DATA_TYPE', 377],
  ['ZERO_ARRAY_OR_TUPLE_INDEX', 135],
  ['ILLEGAL_INDEX', 127],
  ['SET_SIZE_LIMIT_EXCEEDED', 191],
  ['TOO_MANY_BYTES', 307],
  ['TOO_MANY_COLUMNS', 161],
  ['TOO_MANY_TEMPORARY_COLUMNS', 165],
  ['TOO_SLOW', 160],
  ['INVALID_LIMIT_EXPRESSION', 440],
  ['CYCLIC_ALIASES', 174],
  ['UNKNOWN_AGGREGATE_FUNCTION', 63],
  ['AGGREGATE_FUNCTION_THROW', 503],
  ['ILLEGAL_FINAL', 181],
  ['ILLEGAL_PREWHERE', 182],
  ['SAMPLING_NOT_SUPPORTED', 141],
  ['BAD_TYPE_OF_FIELD', 169],
  ['UNSUPPORTED_PARAMETER', 2],
  ['EMPTY_DATA_PASSED', 92],
  ['INCOMPATIBLE_COLUMNS', 122],
  ['DUPLICATE_COLUMN', 15],
  ['UNEXPECTED_EXPRESSION', 183],
  ['CANNOT_CONVERT_CHARSET', 346],
  // A type or pattern given as a string (JSONExtract(…, 'Array('), sequenceMatch('(?1')): the
  // engine's own SQL parser failing on the compiled query is told apart by its message below.
  ['SYNTAX_ERROR', 62],
]);

/** The same errors by number: the client reads the name from the first `(UPPER_CASE)` of the message. */
const USER_ERROR_NAMES: ReadonlyMap<number, string> = new Map([...USER_ERRORS].map(([name, n]) => [n, name]));

export interface EngineErrorInfo {
  /** Safe to show: a problem with the user's query. */
  exposed: boolean;
  /** ClickHouse error name in snake case (`illegal_type_of_argument`), when known. */
  code: string;
  /** For exposed errors: the engine's message without the query text or settings. */
  message: string;
}

export function classifyEngineError(err: unknown): EngineErrorInfo | undefined {
  if (!(err instanceof Error)) return undefined;
  const number = Number((err as { code?: unknown }).code);
  const type = (err as { type?: unknown }).type;
  const name = USER_ERROR_NAMES.get(number) ?? (typeof type === 'string' ? type : undefined);
  if (name === undefined || !/^[A-Z0-9_]+$/.test(name)) return undefined;
  const code = name.toLowerCase();
  const message = engineMessage(err, name);
  // The engine could not parse the SQL the compiler printed: Burrow's bug, not the user's.
  if (
    !USER_ERRORS.has(name) ||
    (name === 'SYNTAX_ERROR' && /^Syntax error: failed at position/.test(message))
  )
    return { exposed: false, code, message: 'ClickHouse error while executing query.' };
  return { exposed: true, code, message: resultLimitMessage(message) ?? cleanMessage(message) };
}

/** The answer-size bound (the engine's or the store's, QUERY_MAX_RESULT_BYTES), said plainly. */
function resultLimitMessage(message: string): string | undefined {
  const bytes = /Limit for result exceeded, max bytes: ([\d.]+ \w+)/.exec(message);
  if (!bytes) return undefined;
  return `The query's answer is larger than ${bytes[1]}, the most one answer may have: select fewer columns or rows (LIMIT), or aggregate.`;
}

/**
 * The engine's whole message. The client cuts it at the first parenthesised upper-case word
 * ("failed at position 12 (WHERE)"); chDB keeps the original text as the cause.
 */
function engineMessage(err: Error, name: string): string {
  const original = (err.cause as { message?: unknown } | undefined)?.message;
  const full = typeof original === 'string' ? /DB::Exception: (.*)$/s.exec(original)?.[1] : undefined;
  if (full === undefined) return err.message;
  const end = full.lastIndexOf(`(${name})`);
  return end >= 0 ? full.slice(0, end) : full;
}

/** Cuts the engine's echo of the query ("In scope SELECT ...", "While processing ..."). */
function cleanMessage(message: string): string {
  const cut = message.search(/:?\s*(In scope|While processing|while executing|in query:|\(version [\d.]+)/i);
  const text = (cut >= 0 ? message.slice(0, cut) : message).replace(/\s+/g, ' ').trim();
  const cleaned = text.replace(
    /`?[\w]+`?\.`?(events|person|person_distinct_id2|groups|sessions|session_replay_events)`?/g,
    '$1',
  );
  // Whatever still names compiled SQL (aliases, JSON extraction) says nothing in HogQL terms.
  if (/__table\d|JSONExtract|replaceRegexpAll|_UInt8|hogql_val_/.test(cleaned)) {
    return 'The query failed in the engine.';
  }
  return inHogQLTerms(cleaned) || 'Query failed';
}

/** ClickHouse type names as HogQL names them. */
function hogqlType(type: string): string {
  const t = type
    .replace(/^(?:Nullable|LowCardinality)\((.*)\)$/, '$1')
    .replace(/^(?:Nullable|LowCardinality)\((.*)\)$/, '$1');
  if (/^U?Int\d+$/.test(t)) return 'Integer';
  if (/^Float\d+$|^Decimal/.test(t)) return 'Float';
  if (/^DateTime/.test(t)) return 'DateTime';
  if (/^Date(32)?$/.test(t)) return 'Date';
  if (t === 'Bool') return 'Boolean';
  if (/^(Fixed)?String/.test(t)) return 'String';
  return t;
}

const STRING_HINT =
  " Properties are strings in HogQL: compare with a string (properties.plan = '1') or convert the property first (toFloat(properties.plan) = 1, toInt(...), toDateTime(...)).";

/** Type errors rephrased with HogQL's type names, and what to do about a string property. */
function inHogQLTerms(message: string): string {
  const noCommon = /^There is no supertype for types ([^:]+?) because/.exec(message);
  if (noCommon) {
    const types = [...new Set((noCommon[1] as string).split(/,\s*/).map(hogqlType))];
    const hint = types.includes('String') && types.length > 1 ? STRING_HINT : '';
    return `Cannot compare or combine values of types ${types.join(' and ')}: they have no common type.${hint}`;
  }
  const illegal = /^Illegal types? (.+?) (?:of arguments? )?(?:of|for) (?:aggregate )?function (\w+)/.exec(
    message,
  );
  if (illegal) {
    const types = [...new Set((illegal[1] as string).split(/\s+and\s+|,\s*/).map(hogqlType))];
    const fn = illegal[2] as string;
    const hint = types.includes('String') ? STRING_HINT : '';
    return `Function ${fn} cannot take ${types.length > 1 ? 'arguments of types' : 'an argument of type'} ${types.join(' and ')}.${hint}`;
  }
  return message;
}
