/**
 * Engine errors a user caused (a function given the wrong type, a division by zero, a query that
 * ran too long) are shown to them as PostHog does: 400 with the ClickHouse error name in snake
 * case as `code`. Everything else is internal: a 500 that reveals neither SQL nor paths.
 */
const USER_ERRORS = new Set([
  'ILLEGAL_TYPE_OF_ARGUMENT',
  'NUMBER_OF_ARGUMENTS_DOESNT_MATCH',
  'TOO_FEW_ARGUMENTS_FOR_FUNCTION',
  'TOO_MANY_ARGUMENTS_FOR_FUNCTION',
  'TYPE_MISMATCH',
  'NO_COMMON_TYPE',
  'CANNOT_CONVERT_TYPE',
  'CANNOT_PARSE_TEXT',
  'CANNOT_PARSE_DATE',
  'CANNOT_PARSE_DATETIME',
  'CANNOT_PARSE_NUMBER',
  'CANNOT_PARSE_UUID',
  'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
  'ILLEGAL_DIVISION',
  'ARGUMENT_OUT_OF_BOUND',
  'BAD_ARGUMENTS',
  'ILLEGAL_AGGREGATION',
  'NOT_AN_AGGREGATE',
  'ILLEGAL_COLUMN',
  'CANNOT_COMPILE_REGEXP',
  'UNKNOWN_IDENTIFIER',
  'AMBIGUOUS_IDENTIFIER',
  'AMBIGUOUS_COLUMN_NAME',
  'MULTIPLE_EXPRESSIONS_FOR_ALIAS',
  'TOO_DEEP_RECURSION',
  'TOO_DEEP_SUBQUERIES',
  'TOO_BIG_AST',
  'TOO_MANY_ROWS',
  'TOO_MANY_ROWS_OR_BYTES',
  'TIMEOUT_EXCEEDED',
  'MEMORY_LIMIT_EXCEEDED',
  'QUERY_WAS_CANCELLED',
  'DECIMAL_OVERFLOW',
  'ILLEGAL_TYPE_OF_COLUMN_FOR_FILTER',
  'INVALID_JOIN_ON_EXPRESSION',
  'UNSUPPORTED_METHOD',
  'INCORRECT_QUERY',
  'SIZES_OF_ARRAYS_DONT_MATCH',
  'FUNCTION_THROW_IF_VALUE_IS_NON_ZERO',
  'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
  'CANNOT_ALLOCATE_MEMORY',
  'TOO_LARGE_STRING_SIZE',
  // A scalar subquery of the user's that returned several rows, or a NULL where it cannot go
  // (`transform(x, [(SELECT …)], …)` over an empty or multi-row result).
  'INCORRECT_RESULT_OF_SCALAR_SUBQUERY',
  'CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN',
]);

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
  const type = (err as { type?: unknown }).type;
  if (typeof type !== 'string' || !/^[A-Z_]+$/.test(type)) return undefined;
  const code = type.toLowerCase();
  if (!USER_ERRORS.has(type))
    return { exposed: false, code, message: 'ClickHouse error while executing query.' };
  return { exposed: true, code, message: cleanMessage(err.message) };
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
