import { validationError } from '../../errors.js';
import { regexProblem } from './re2.js';

const REGEX_OPERATORS = new Set(['regex', 'not_regex']);

/** The 400 for a pattern RE2 cannot run, naming the field and the problem. */
export function invalidRegex(pattern: string, problem: string, attr: string | null, code = 'invalid_input') {
  const shown = pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern;
  return validationError(
    `Invalid regular expression "${shown}": ${problem}. Patterns use RE2 syntax, as ClickHouse's match(): no lookarounds or backreferences.`,
    attr,
    code,
  );
}

/** Refuses a pattern RE2 cannot run (syntax it lacks, too long, too large). */
export function checkRegex(pattern: string, attr: string | null, code?: string): void {
  const problem = regexProblem(pattern);
  if (problem !== null) throw invalidRegex(pattern, problem, attr, code);
}

/**
 * Every `regex`/`not_regex` pattern in a property filter tree (lists, `{type: AND|OR, values}`
 * groups, leaves), checked. Anything else is left to the validation that reads the filters.
 */
export function checkFilterRegexes(filters: unknown, attr: string | null, depth = 0): void {
  if (depth > 32 || filters === null || typeof filters !== 'object') return;
  if (Array.isArray(filters)) {
    for (const f of filters) checkFilterRegexes(f, attr, depth + 1);
    return;
  }
  const o = filters as Record<string, unknown>;
  if (Array.isArray(o.values) && (o.type === 'AND' || o.type === 'OR')) {
    checkFilterRegexes(o.values, attr, depth + 1);
    return;
  }
  if (typeof o.operator === 'string' && REGEX_OPERATORS.has(o.operator)) {
    for (const v of Array.isArray(o.value) ? o.value : [o.value])
      if (typeof v === 'string') checkRegex(v, attr);
  }
}
