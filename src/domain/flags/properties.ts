import { regexMatches } from '../regex/re2.js';
import { compareVersions, parseVersion, rangeOf } from './semver.js';
import type { PropertyFilter } from './types.js';

/**
 * One property filter against a property map, with the semantics of PostHog's flags service: the
 * value is compared as its string form (JSON for non-strings), case-insensitively for text
 * operators; a filter that cannot be applied (a pattern RE2 cannot run, non-numeric bound,
 * unparsable date) is simply not matched. Regexes run on RE2 (`../regex/re2.ts`), with ClickHouse's
 * `match()` semantics; one too costly for the value throws `RegexTooCostly` (the flag errs). The operators a missing property satisfies are the negative ones (`is_not`,
 * `not_icontains`, `not_regex`, ...) and `is_not_set`.
 */
export function matchProperty(filter: PropertyFilter, props: Record<string, unknown>, now: Date): boolean {
  const operator = filter.operator ?? 'exact';
  const has = Object.hasOwn(props, filter.key);
  if (operator === 'is_set') return has;
  if (operator === 'is_not_set') return !has;
  const expected = filter.value;
  if (expected === null || expected === undefined) return false;
  const actual = has ? props[filter.key] : undefined;
  switch (operator) {
    case 'exact':
    case 'is_not': {
      if (!has) return operator === 'is_not';
      const same = exactMatch(expected, actual);
      return operator === 'exact' ? same : !same;
    }
    case 'icontains':
    case 'not_icontains':
      return textOp(operator, has, actual, (a) => a.includes(lower(expected)));
    case 'starts_with':
    case 'not_starts_with':
      return textOp(operator, has, actual, (a) => a.startsWith(lower(expected)));
    case 'ends_with':
    case 'not_ends_with':
      return textOp(operator, has, actual, (a) => a.endsWith(lower(expected)));
    case 'icontains_multi':
    case 'not_icontains_multi': {
      const needles = Array.isArray(expected) ? expected : [expected];
      return textOp(operator, has, actual, (a) => needles.some((n) => a.includes(lower(n))));
    }
    case 'regex':
    case 'not_regex': {
      if (!has) return operator === 'not_regex';
      const found = regexMatches(stringForm(expected), stringForm(actual));
      if (found === null) return false;
      return operator === 'regex' ? found : !found;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      if (!has) return false;
      const a = toNumber(actual);
      const b = toNumber(expected);
      if (a === null || b === null) return false;
      if (operator === 'gt') return a > b;
      if (operator === 'gte') return a >= b;
      if (operator === 'lt') return a < b;
      return a <= b;
    }
    case 'between':
    case 'not_between': {
      if (!has) return operator === 'not_between';
      if (!Array.isArray(expected) || expected.length !== 2) return false;
      const low = toNumber(expected[0]);
      const high = toNumber(expected[1]);
      const a = toNumber(actual);
      if (low === null || high === null || a === null || low > high || Number.isNaN(a)) return false;
      const inside = a >= low && a <= high;
      return operator === 'between' ? inside : !inside;
    }
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte': {
      if (!has) return false;
      const a = parseVersion(actual);
      const b = parseVersion(expected);
      if (!a || !b) return false;
      const c = compareVersions(a, b);
      return {
        semver_eq: c === 0,
        semver_neq: c !== 0,
        semver_gt: c > 0,
        semver_gte: c >= 0,
        semver_lt: c < 0,
        semver_lte: c <= 0,
      }[operator];
    }
    case 'semver_tilde':
    case 'semver_caret':
    case 'semver_wildcard': {
      if (!has) return false;
      const a = parseVersion(actual);
      const range = rangeOf(operator.slice(7) as 'tilde' | 'caret' | 'wildcard', expected);
      if (!a || !range) return false;
      return compareVersions(a, range[0]) >= 0 && (range[1] === null || compareVersions(a, range[1]) < 0);
    }
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact': {
      if (!has || typeof expected !== 'string') return false;
      const a = parseDate(actual, now);
      const b = parseDate(expected, now);
      if (a === null || b === null) return false;
      if (operator === 'is_date_before') return a < b;
      if (operator === 'is_date_after') return a > b;
      return a === b;
    }
    default:
      return false;
  }
}

/** The operators evaluation knows (cohort `in`/`not_in` and flag dependencies are handled apart). */
export const PROPERTY_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'icontains_multi',
  'not_icontains_multi',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'not_between',
  'is_set',
  'is_not_set',
  'is_date_before',
  'is_date_after',
  'is_date_exact',
  'semver_eq',
  'semver_neq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
] as const;

/** A value as text: strings as they are, anything else as JSON (`true`, `1.5`, `null`, `[1]`). */
export function stringForm(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value === undefined ? null : value) ?? 'null';
}

export const lower = (value: unknown) => stringForm(value).replace(/[A-Z]/g, (c) => c.toLowerCase());

function textOp(operator: string, has: boolean, actual: unknown, test: (a: string) => boolean): boolean {
  const negative = operator.startsWith('not_');
  if (!has) return negative;
  const found = test(lower(actual));
  return negative ? !found : found;
}

export function isBooleanLike(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') return value.toLowerCase() === 'true' || value.toLowerCase() === 'false';
  if (Array.isArray(value)) return value.every(isBooleanLike);
  return false;
}

export function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  if (Array.isArray(value)) return value.every(truthy);
  return false;
}

/** `true`, "True" and "true" are one value; a list matches when any element does. */
function exactMatch(expected: unknown, actual: unknown): boolean {
  if (isBooleanLike(expected)) return truthy(expected) === truthy(actual);
  const target = stringForm(actual).toLowerCase();
  if (Array.isArray(expected)) return expected.some((v) => stringForm(v).toLowerCase() === target);
  return stringForm(expected).toLowerCase() === target;
}

const FLOAT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A number, or a string that is exactly one (as Rust's `f64::from_str`, without inf/NaN). */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || !FLOAT.test(value)) return null;
  return Number(value);
}

const RELATIVE = /^-?(\d{1,4})([hdwmy])$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const NAIVE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Epoch milliseconds of a date filter or property: `-7d`-style relative dates (hours, days, weeks,
 * months, years before now), ISO dates with an offset, and naive dates/times read as UTC.
 *
 * Deliberately not `domain/time`'s parser: flag matching follows the SDKs' local evaluation (an
 * exact instant `n` units before now, in UTC, no rounding to the start of a day or the project's
 * zone), and the posthog-node oracle test holds Burrow to it; query date ranges round and use the
 * project's zone.
 */
export function parseDate(value: unknown, now: Date): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const rel = RELATIVE.exec(text);
  if (rel) {
    const n = Number(rel[1]);
    const d = new Date(now.getTime());
    const unit = rel[2];
    if (unit === 'h') d.setUTCHours(d.getUTCHours() - n);
    else if (unit === 'd') d.setUTCDate(d.getUTCDate() - n);
    else if (unit === 'w') d.setUTCDate(d.getUTCDate() - 7 * n);
    else if (unit === 'm') d.setUTCMonth(d.getUTCMonth() - n);
    else d.setUTCFullYear(d.getUTCFullYear() - n);
    return d.getTime();
  }
  let iso: string;
  if (DATE_ONLY.test(text)) iso = `${text}T00:00:00Z`;
  else if (NAIVE.test(text)) iso = `${text.replace(' ', 'T')}Z`;
  else if (WITH_ZONE.test(text)) iso = text.replace(' ', 'T');
  else return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}
