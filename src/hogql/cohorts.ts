import { type AnySelect, compare, constant, type Expr, field, type SelectQuery } from './ast.js';
import { HogQLQueryError } from './errors.js';
import { replaceNodes } from './visit.js';

/** A cohort as the compiler needs it: which calculation's member rows to read. */
export interface CohortRef {
  id: number;
  /** The finished calculation (`cohort_people.version`); null: never calculated (no members). */
  version: number | null;
  /** Shown as the label of a cohort breakdown's group. */
  name?: string | null;
}

/** Finds a cohort of the project by id or by name; undefined when there is none. */
export type CohortLookup = (ref: number | string) => CohortRef | undefined;

/** The SELECT of a cohort's members: `cohort_people` is team-guarded like every table. */
export function cohortMembers(cohort: CohortRef): SelectQuery {
  return {
    node: 'SelectQuery',
    select: [field('person_id')],
    select_from: { node: 'JoinExpr', table: field('cohort_people') },
    where: {
      node: 'And',
      exprs: [
        compare('==', field('cohort_id'), constant(cohort.id)),
        compare('==', field('version'), constant(cohort.version ?? -1)),
      ],
    },
  };
}

/**
 * `x IN COHORT 5` / `x IN COHORT 'name'` (PostHog's grammar) becomes `x IN (members of the
 * cohort)`. Runs before resolution, so the subquery is resolved and guarded as any other.
 */
export function replaceCohorts(ast: AnySelect, lookup: CohortLookup | undefined): AnySelect {
  return replaceNodes(ast, (node) => {
    if (node.node !== 'CompareOperation' || (node.op !== 'in cohort' && node.op !== 'not in cohort'))
      return undefined;
    const ref = node.right;
    if (ref.node !== 'Constant' || (typeof ref.value !== 'number' && typeof ref.value !== 'string'))
      throw new HogQLQueryError('IN COHORT needs a cohort id or name');
    const cohort = lookup?.(ref.value);
    if (!cohort) {
      throw new HogQLQueryError(
        typeof ref.value === 'number'
          ? `Could not find cohort with ID ${ref.value}`
          : `Could not find a cohort with the name '${ref.value}'`,
      );
    }
    return compare(node.op === 'in cohort' ? 'in' : 'not in', node.left, cohortMembers(cohort) as Expr);
  }) as AnySelect;
}
