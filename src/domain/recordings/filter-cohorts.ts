import { validationError } from '../../errors.js';
import { cohortRefs } from '../../store/meta/cohorts.js';
import type { Deps } from '../deps.js';
import type { FilterNode } from './filter-types.js';

/** Fills each cohort filter with the cohort's finished calculation; an unknown cohort is a 400. */
export async function resolveFilterCohorts(
  deps: Pick<Deps, 'meta'>,
  teamId: number,
  node: FilterNode,
): Promise<FilterNode> {
  let refs: Map<number, number | null> | undefined;
  const fill = async (n: FilterNode): Promise<FilterNode> => {
    if (n.kind === 'group') return { ...n, children: await Promise.all(n.children.map(fill)) };
    if (n.kind !== 'cohort') return n;
    refs ??= new Map((await cohortRefs(deps.meta, teamId)).map((c) => [c.id, c.version]));
    if (!refs.has(n.id)) throw validationError(`Cohort ${n.id} does not exist.`, 'properties');
    return { ...n, version: refs.get(n.id) ?? null };
  };
  return fill(node);
}
