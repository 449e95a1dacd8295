import { validationError } from '../../errors.js';
import { findActions } from '../../store/meta/action-lookups.js';
import type { Deps } from '../deps.js';
import type { ActionRef, FilterNode } from './filter-types.js';

/**
 * Recording filters name actions by id; their steps come from the project's actions just before a
 * run (and when a playlist is saved), so an edited action changes what a saved filter matches.
 * Deleted actions still resolve, as in insights: a saved filter naming one keeps working.
 */
function refs(node: FilterNode, out: ActionRef[]): ActionRef[] {
  if (node.kind === 'group') for (const c of node.children) refs(c, out);
  else if (node.kind === 'event' && node.action) out.push(node.action);
  return out;
}

/** A copy of the tree with every action's steps filled in; an id the project lacks is a 400. */
export async function resolveFilterActions(
  deps: Pick<Deps, 'meta'>,
  teamId: number,
  node: FilterNode,
): Promise<FilterNode> {
  const wanted = refs(node, []);
  if (wanted.length === 0) return node;
  const ids = [...new Set(wanted.map((r) => r.id))];
  const found = new Map((await findActions(deps.meta, teamId, ids)).map((a) => [a.id, a.steps]));
  for (const r of wanted)
    if (!found.has(r.id)) throw validationError(`Action ${r.id} does not exist.`, r.attr);
  const fill = (n: FilterNode): FilterNode => {
    if (n.kind === 'group') return { ...n, children: n.children.map(fill) };
    if (n.kind !== 'event' || !n.action) return n;
    return { ...n, action: { ...n.action, steps: found.get(n.action.id) ?? [] } };
  };
  return fill(node);
}
