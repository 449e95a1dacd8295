import { ApiError } from '../../errors.js';
import { findActions } from '../../store/meta/action-lookups.js';
import type { ActionStep } from '../../store/meta/actions.js';
import type { Deps } from '../deps.js';
import type { QueryNode } from '../query/kinds.js';

/**
 * Queries name actions by id (`{kind: "ActionsNode", id}`, retention's `{type: "actions", id}`,
 * EventsQuery's `actionId`). Before a query is checked, cached or run, each such reference gets the
 * action's definition embedded under `RESOLVED`, so runners stay synchronous and the cache key
 * changes when an action is edited.
 */
export const RESOLVED = '_burrow_action';

export interface ResolvedAction {
  id: number;
  name: string | null;
  steps: ActionStep[];
}

// Where legacy `{id, type: "actions"}` entities sit (retention entities, series, exclusions); a
// `values` object of a HogQL query that happens to look like one is left alone.
const ENTITY_SLOT = /(?:^|\.)(?:targetEntity|returningEntity|(?:series|exclusions)\.\d+)$/;

type Ref = { holder: Record<string, unknown>; id: number; attr: string };

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function actionId(raw: unknown, attr: string): number {
  const n = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 2_147_483_647)
    throw new ApiError(
      400,
      'validation_error',
      'invalid_input',
      `${attr}: an action id must be a positive integer`,
      attr,
    );
  return n;
}

function collect(x: unknown, attr: string, refs: Ref[], depth: number): void {
  if (depth > 32) return;
  if (Array.isArray(x)) {
    for (const [i, item] of x.entries()) collect(item, attr ? `${attr}.${i}` : String(i), refs, depth + 1);
    return;
  }
  if (!isObject(x)) return;
  delete x[RESOLVED]; // only ever set here, never taken from the request
  if (x.kind === 'ActionsNode' || (x.kind === undefined && x.type === 'actions' && ENTITY_SLOT.test(attr)))
    refs.push({ holder: x, id: actionId(x.id, attr || 'id'), attr: attr || 'id' });
  if (x.kind === 'EventsQuery' && x.actionId !== undefined && x.actionId !== null)
    refs.push({ holder: x, id: actionId(x.actionId, 'actionId'), attr: 'actionId' });
  // WebOverviewQuery's (and the other web kinds') `conversionGoal: {actionId}`.
  if (/(?:^|\.)conversionGoal$/.test(attr) && x.actionId !== undefined && x.actionId !== null)
    refs.push({ holder: x, id: actionId(x.actionId, `${attr}.actionId`), attr: `${attr}.actionId` });
  for (const [k, v] of Object.entries(x))
    if (typeof v === 'object') collect(v, attr ? `${attr}.${k}` : k, refs, depth + 1);
}

/** A copy of the node with every action it names resolved; unknown or other teams' ids are 400s. */
export async function resolveActions(
  deps: Pick<Deps, 'meta'>,
  teamId: number,
  node: QueryNode,
): Promise<QueryNode> {
  const copy = structuredClone(node);
  const refs: Ref[] = [];
  collect(copy, '', refs, 0);
  if (refs.length === 0) return copy;
  const found = new Map(
    (await findActions(deps.meta, teamId, [...new Set(refs.map((r) => r.id))])).map((a) => [a.id, a]),
  );
  for (const ref of refs) {
    const action = found.get(ref.id);
    if (!action)
      throw new ApiError(
        400,
        'validation_error',
        'invalid_input',
        `Action ${ref.id} does not exist in this project.`,
        ref.attr,
      );
    ref.holder[RESOLVED] = { id: action.id, name: action.name, steps: action.steps } satisfies ResolvedAction;
  }
  return copy;
}

/** The embedded definition of an action reference (runners call this after resolveActions). */
export function resolvedAction(holder: Record<string, unknown>, attr: string): ResolvedAction {
  const a = holder[RESOLVED];
  if (!isObject(a) || !Array.isArray(a.steps))
    throw new ApiError(
      400,
      'validation_error',
      'invalid_input',
      `${attr}: the action could not be resolved`,
      attr,
    );
  return a as unknown as ResolvedAction;
}
