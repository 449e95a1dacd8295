import { call, compare, constant, type Expr, field } from './ast.js';
import { cohortFilterToExpr } from './cohort-filter.js';
import { elementFilterToExpr } from './element-filters.js';
import { HogQLError, HogQLQueryError } from './errors.js';
import { parseExpr } from './parse.js';

/**
 * PostHog property filters (`{key, value, operator, type}`) and filter groups as HogQL AST, the
 * building block EventsQuery, `{filters}` and the insight kinds share.
 */
/** The operators every kind of PostHog property filter takes (dates, ranges and sets come on top). */
export const BASIC_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
] as const;

export type PropertyOperator =
  | 'exact'
  | 'is_not'
  | 'icontains'
  | 'not_icontains'
  | 'regex'
  | 'not_regex'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'is_set'
  | 'is_not_set'
  | 'is_date_exact'
  | 'is_date_before'
  | 'is_date_after'
  | 'between'
  | 'not_between'
  | 'min'
  | 'max'
  | 'in'
  | 'not_in';

export interface PropertyFilter {
  type?: string;
  key: string;
  value?: unknown;
  operator?: PropertyOperator | null;
  group_type_index?: number | null;
}

export interface PropertyGroupFilter {
  type: 'AND' | 'OR';
  values: Array<PropertyFilter | PropertyGroupFilter>;
}

export type AnyProperties =
  | Array<PropertyFilter | PropertyGroupFilter>
  | PropertyGroupFilter
  | null
  | undefined;

/** Where properties live for the table a filter applies to (`events` or `sessions`). */
export type FilterScope = 'events' | 'sessions' | 'persons';

function target(f: PropertyFilter, scope: FilterScope): Expr {
  const type = f.type ?? 'event';
  switch (type) {
    case 'event':
      if (scope !== 'events') throw new HogQLQueryError(`Event property filters only apply to events`);
      return field('properties', f.key);
    case 'person':
      return scope === 'persons' ? field('properties', f.key) : field('person', 'properties', f.key);
    case 'session':
      return scope === 'sessions' ? field(f.key) : field('session', f.key);
    case 'group': {
      const i = f.group_type_index;
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i > 4) {
        throw new HogQLQueryError('Group property filters need a group_type_index from 0 to 4');
      }
      return field(`group_${i}`, 'properties', f.key);
    }
    default:
      throw new HogQLQueryError(`Unsupported property filter type: ${type}`);
  }
}

const scalar = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new HogQLQueryError('Property filter values must be strings, numbers or booleans');
};
const values = (v: unknown): string[] => (Array.isArray(v) ? v.map(scalar) : [scalar(v)]);
const number = (v: unknown): Expr => {
  const n = typeof v === 'number' ? v : Number(scalar(Array.isArray(v) ? v[0] : v));
  if (!Number.isFinite(n)) throw new HogQLQueryError(`Property filter value ${String(v)} is not a number`);
  return constant(n);
};
const anyOf = (exprs: Expr[]): Expr => (exprs.length === 1 ? (exprs[0] as Expr) : { node: 'Or', exprs });
const allOf = (exprs: Expr[]): Expr => (exprs.length === 1 ? (exprs[0] as Expr) : { node: 'And', exprs });

export function propertyFilterToExpr(f: PropertyFilter, scope: FilterScope = 'events'): Expr {
  if (f.type === 'hogql') return parseExpr(f.key);
  if (f.type === 'cohort' || f.type === 'static-cohort' || f.type === 'precalculated-cohort')
    return cohortFilterToExpr(f, scope);
  if (f.type === 'element') {
    if (scope !== 'events') throw new HogQLQueryError('Element filters only apply to events');
    return elementFilterToExpr(f);
  }
  if (typeof f.key !== 'string' || !f.key) throw new HogQLQueryError('Property filters need a key');
  const x = target(f, scope);
  const op = f.operator ?? 'exact';
  const num = () => call('toFloat', [x]);
  const date = (v: unknown) => call('toDateTime', [constant(scalar(v))]);
  switch (op) {
    case 'exact':
    case 'in': {
      const vs = values(f.value);
      return vs.length === 1
        ? compare('==', x, constant(vs[0] as string))
        : compare('in', x, { node: 'Array', exprs: vs.map(constant) });
    }
    case 'is_not':
    case 'not_in': {
      const vs = values(f.value);
      return vs.length === 1
        ? compare('!=', x, constant(vs[0] as string))
        : compare('not in', x, { node: 'Array', exprs: vs.map(constant) });
    }
    case 'icontains':
      return anyOf(values(f.value).map((v) => compare('ilike', x, constant(`%${v}%`))));
    case 'not_icontains':
      return allOf(values(f.value).map((v) => compare('not ilike', x, constant(`%${v}%`))));
    case 'regex':
      return compare('=~', x, constant(scalar(f.value)));
    case 'not_regex':
      return compare('!~', x, constant(scalar(f.value)));
    case 'gt':
      return compare('>', num(), number(f.value));
    case 'gte':
    case 'min':
      return compare('>=', num(), number(f.value));
    case 'lt':
      return compare('<', num(), number(f.value));
    case 'lte':
    case 'max':
      return compare('<=', num(), number(f.value));
    case 'between':
    case 'not_between': {
      if (!Array.isArray(f.value) || f.value.length !== 2)
        throw new HogQLQueryError(`${op} needs two values`);
      return {
        node: 'BetweenExpr',
        expr: num(),
        low: number(f.value[0]),
        high: number(f.value[1]),
        negated: op === 'not_between',
      };
    }
    case 'is_set':
      return compare('!=', x, constant(null));
    case 'is_not_set':
      return compare('==', x, constant(null));
    case 'is_date_exact':
      return compare('==', call('toDateTime', [x]), date(f.value));
    case 'is_date_before':
      return compare('<', call('toDateTime', [x]), date(f.value));
    case 'is_date_after':
      return compare('>', call('toDateTime', [x]), date(f.value));
    default: {
      const error = new HogQLQueryError(
        `Unsupported property filter operator "${String(op).slice(0, 100)}" on property "${f.key.slice(0, 100)}". Choose one of: ${FILTER_OPERATORS.join(', ')}.`,
      );
      error.attr = 'operator';
      throw error;
    }
  }
}

/** Every operator a property filter may name (PostHog's PropertyOperator, and its aliases). */
export const FILTER_OPERATORS = [
  ...BASIC_OPERATORS,
  'in',
  'not_in',
  'between',
  'not_between',
  'min',
  'max',
  'is_date_exact',
  'is_date_before',
  'is_date_after',
] as const;

/** Runs `build` for the filter at `segment`, prefixing the path of an error's `attr` with it. */
export function at<T>(segment: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof HogQLError && err.attr) err.attr = `${segment}__${err.attr}`;
    throw err;
  }
}

const isGroup = (f: PropertyFilter | PropertyGroupFilter): f is PropertyGroupFilter =>
  (f.type === 'AND' || f.type === 'OR') && Array.isArray((f as PropertyGroupFilter).values);

/** A list of filters (all must hold) or a nested AND/OR group; nothing → `true`. */
export function propertiesToExpr(props: AnyProperties, scope: FilterScope = 'events'): Expr {
  if (!props) return constant(true);
  if (Array.isArray(props)) {
    const exprs = props.map((p, i) =>
      at(String(i), () => (isGroup(p) ? propertiesToExpr(p, scope) : propertyFilterToExpr(p, scope))),
    );
    return exprs.length ? allOf(exprs) : constant(true);
  }
  if (!isGroup(props)) throw new HogQLQueryError('Invalid property group');
  const exprs = props.values.map((v, i) =>
    at(`values__${i}`, () => (isGroup(v) ? propertiesToExpr(v, scope) : propertyFilterToExpr(v, scope))),
  );
  if (!exprs.length) return constant(true);
  return props.type === 'OR' ? anyOf(exprs) : allOf(exprs);
}
