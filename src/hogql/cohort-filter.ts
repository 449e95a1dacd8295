import { compare, constant, type Expr, field } from './ast.js';
import { HogQLQueryError } from './errors.js';
import type { FilterScope, PropertyFilter } from './property-filters.js';

/**
 * `{type: "cohort", key: "id", value: 5}` (operator `in`, or `not_in`): the person is (not) a
 * member, as `person_id IN COHORT 5`, which the compiler expands with the project's cohorts.
 */
export function cohortFilterToExpr(f: PropertyFilter, scope: FilterScope): Expr {
  const raw = Array.isArray(f.value) ? f.value[0] : f.value;
  const id =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw new HogQLQueryError('Cohort filters need a cohort id as their value');
  const person = scope === 'events' ? field('person_id') : scope === 'persons' ? field('id') : undefined;
  if (!person) throw new HogQLQueryError('Cohort filters do not apply here');
  return compare(f.operator === 'not_in' ? 'not in cohort' : 'in cohort', person, constant(id));
}
