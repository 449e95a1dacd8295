import { invalidChoice, validationError } from '../../errors.js';
import { elementFilterToExpr } from '../../hogql/element-filters.js';
import { HogQLQueryError } from '../../hogql/errors.js';
import { BASIC_OPERATORS, type PropertyFilter } from '../../hogql/property-filters.js';
import { checkRegex } from '../regex/check.js';
import { at, choice, list, required, scalar } from './check.js';

const MAX_VALUES = 500;
const ELEMENT_KEYS = ['text', 'href', 'selector', 'tag_name'] as const;
/** Element filters compare text: every basic operator but the numeric ones. */
const ELEMENT_OPERATORS = BASIC_OPERATORS.filter((o) => !['gt', 'gte', 'lt', 'lte'].includes(o));

/** An autocapture element filter, checked now by compiling it once (its errors name the filter). */
export function elementFilter(raw: Record<string, unknown>, path: string): PropertyFilter {
  const key = choice(required(raw.key, at(path, 'key')), ELEMENT_KEYS, at(path, 'key'));
  const operator = choice(raw.operator ?? 'exact', ELEMENT_OPERATORS, at(path, 'operator'));
  if ((key === 'selector' || key === 'tag_name') && operator !== 'exact' && operator !== 'is_not')
    throw invalidChoice(operator, ['exact', 'is_not'], at(path, 'operator'));
  const f: PropertyFilter = { type: 'element', key, operator };
  if (operator !== 'is_set' && operator !== 'is_not_set') {
    const value = required(raw.value, at(path, 'value'));
    const values = Array.isArray(value)
      ? list(value, at(path, 'value'), MAX_VALUES).map((v, i) => scalar(v, at(at(path, 'value'), i)))
      : [scalar(value, at(path, 'value'))];
    if (values.length === 0) throw validationError('This list may not be empty.', at(path, 'value'), 'empty');
    f.value = values;
    if (operator === 'regex' || operator === 'not_regex')
      for (const [i, v] of values.entries())
        checkRegex(v, Array.isArray(value) ? at(at(path, 'value'), i) : at(path, 'value'));
  }
  try {
    elementFilterToExpr(f);
  } catch (error) {
    // Only a selector can still be wrong here (`div >`, `::before`).
    if (error instanceof HogQLQueryError) throw validationError(error.message, at(path, 'value'));
    throw error;
  }
  return f;
}
