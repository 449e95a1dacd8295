import { call, compare, constant, type Expr } from './ast.js';
import { anyElement, chainValues, matches, tagNameMatches } from './elements.js';
import { HogQLQueryError } from './errors.js';
import type { PropertyFilter } from './property-filters.js';
import { selectorToExpr } from './selector.js';

/**
 * `{type: "element", key, value, operator}` filters on autocapture elements: `text` and `href`
 * (any element of the chain) with the string operators, `selector` and `tag_name` with `exact` /
 * `is_not`. Several values: any of them (none of them when negated).
 */
const scalar = (v: unknown): string => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new HogQLQueryError('Element filter values must be strings');
};
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(scalar) : [scalar(v)]);
const any = (exprs: Expr[]): Expr => (exprs.length === 1 ? (exprs[0] as Expr) : { node: 'Or', exprs });
const not = (e: Expr): Expr => call('not', [e]);

const NEGATED: Record<string, string> = {
  is_not: 'exact',
  not_in: 'in',
  not_icontains: 'icontains',
  not_regex: 'regex',
};

export function elementFilterToExpr(f: PropertyFilter): Expr {
  const op = f.operator ?? 'exact';
  const positive = NEGATED[op] ?? op;
  const negate = positive !== op;
  const wrap = (e: Expr) => (negate ? not(e) : e);
  switch (f.key) {
    case 'selector':
    case 'tag_name': {
      if (positive !== 'exact' && positive !== 'in')
        throw new HogQLQueryError(`Element ${f.key} filters support only the exact and is_not operators`);
      const one = f.key === 'selector' ? selectorToExpr : tagNameMatches;
      return wrap(any(list(f.value).map(one)));
    }
    case 'text':
    case 'href': {
      const key = f.key;
      if (op === 'is_set' || op === 'is_not_set')
        return compare(op === 'is_set' ? '>' : '==', call('length', [chainValues(key)]), constant(0));
      const values = list(f.value);
      if (positive === 'exact' || positive === 'in')
        return wrap(any(values.map((v) => anyElement(key, (x) => matches(x, v, 'exact', true)))));
      if (positive === 'icontains')
        return wrap(any(values.map((v) => anyElement(key, (x) => matches(x, v, 'contains', true)))));
      if (positive === 'regex')
        return wrap(any(values.map((v) => anyElement(key, (x) => matches(x, v, 'regex', true)))));
      throw new HogQLQueryError(`Element ${key} filters do not support the ${String(op)} operator`);
    }
    default:
      throw new HogQLQueryError('Element filters need the key text, href, selector or tag_name');
  }
}
