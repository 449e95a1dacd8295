import { isBooleanLike, lower, matchProperty, stringForm, toNumber, truthy } from './properties.js';
import { compareVersions, parseVersion } from './semver.js';
import type { PropertyFilter } from './types.js';

/** One property filter, ready to test a property map: what depends on the filter alone is done. */
export type PropertyMatcher = (props: Record<string, unknown>, now: Date) => boolean;

const never: PropertyMatcher = () => false;

/**
 * `matchProperty` with the filter's side worked out once per flag definition instead of per
 * request: the expected value lowered, parsed as a number or a version, a list turned into a set.
 * The common operators get their own matcher; the rest (regex, dates, ranges, semver ranges) call
 * `matchProperty` itself, so the semantics stay in one place (`properties.ts`); the tests compare
 * both on every operator.
 */
export function compileProperty(filter: PropertyFilter): PropertyMatcher {
  const operator = filter.operator ?? 'exact';
  const key = filter.key;
  if (operator === 'is_set') return (props) => Object.hasOwn(props, key);
  if (operator === 'is_not_set') return (props) => !Object.hasOwn(props, key);
  const expected = filter.value;
  if (expected === null || expected === undefined) return never;
  switch (operator) {
    case 'exact':
    case 'is_not': {
      const negate = operator === 'is_not';
      let same: (actual: unknown) => boolean;
      if (isBooleanLike(expected)) {
        const want = truthy(expected);
        same = (actual) => truthy(actual) === want;
      } else if (Array.isArray(expected)) {
        const set = new Set(expected.map((v) => stringForm(v).toLowerCase()));
        same = (actual) => set.has(stringForm(actual).toLowerCase());
      } else {
        const want = stringForm(expected).toLowerCase();
        same = (actual) => stringForm(actual).toLowerCase() === want;
      }
      return (props) => {
        if (!Object.hasOwn(props, key)) return negate;
        return same(props[key]) !== negate;
      };
    }
    case 'icontains':
    case 'not_icontains': {
      const needle = lower(expected);
      return text(key, operator, (a) => a.includes(needle));
    }
    case 'starts_with':
    case 'not_starts_with': {
      const needle = lower(expected);
      return text(key, operator, (a) => a.startsWith(needle));
    }
    case 'ends_with':
    case 'not_ends_with': {
      const needle = lower(expected);
      return text(key, operator, (a) => a.endsWith(needle));
    }
    case 'icontains_multi':
    case 'not_icontains_multi': {
      const needles = (Array.isArray(expected) ? expected : [expected]).map(lower);
      return text(key, operator, (a) => needles.some((n) => a.includes(n)));
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const b = toNumber(expected);
      if (b === null) return never;
      const test =
        operator === 'gt'
          ? (a: number) => a > b
          : operator === 'gte'
            ? (a: number) => a >= b
            : operator === 'lt'
              ? (a: number) => a < b
              : (a: number) => a <= b;
      return (props) => {
        if (!Object.hasOwn(props, key)) return false;
        const a = toNumber(props[key]);
        return a !== null && test(a);
      };
    }
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte': {
      const b = parseVersion(expected);
      if (!b) return never;
      const holds = SEMVER[operator] as (c: number) => boolean;
      return (props) => {
        if (!Object.hasOwn(props, key)) return false;
        const a = parseVersion(props[key]);
        return a !== null && holds(compareVersions(a, b));
      };
    }
    default:
      return (props, now) => matchProperty(filter, props, now);
  }
}

const SEMVER: Record<string, (c: number) => boolean> = {
  semver_eq: (c) => c === 0,
  semver_neq: (c) => c !== 0,
  semver_gt: (c) => c > 0,
  semver_gte: (c) => c >= 0,
  semver_lt: (c) => c < 0,
  semver_lte: (c) => c <= 0,
};

/** The text operators: a missing property satisfies only the negative ones. */
function text(key: string, operator: string, test: (lowered: string) => boolean): PropertyMatcher {
  const negative = operator.startsWith('not_');
  return (props) => {
    if (!Object.hasOwn(props, key)) return negative;
    return test(lower(props[key])) !== negative;
  };
}
