import { notFound, validationError } from '../../errors.js';
import { actionNamed, findAction, listActions } from '../../store/meta/action-lookups.js';
import { type ActionPatch, type ActionRecord, insertAction, updateAction } from '../../store/meta/actions.js';
import type { UserRecord } from '../../store/meta/users.js';
import type { ProjectAccess } from '../access.js';
import { usersById } from '../accounts/users.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { checkStepCohorts, checkSteps } from './steps.js';

/** Writable fields of PostHog's ActionSerializer (others are read-only and ignored). */
export interface ActionInput {
  name?: string | null;
  description?: string;
  tags?: string[];
  post_to_slack?: boolean;
  slack_message_format?: string;
  steps?: unknown;
  deleted?: boolean;
  pinned_at?: string | null;
}

/** Tags as PostHog's tagify stores them: trimmed, lowercase, no repeats. */
const tagify = (tags: string[]) => [...new Set(tags.map((t) => t.trim().toLowerCase()).filter(Boolean))];

function pinnedAt(v: string | null | undefined): string | null | undefined {
  if (v === undefined || v === null || v === '') return v === '' ? null : v;
  const t = Date.parse(v);
  if (Number.isNaN(t))
    throw validationError(
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      'pinned_at',
      'invalid',
    );
  return new Date(t).toISOString();
}

async function checkName(
  deps: Deps,
  teamId: number,
  name: string | null | undefined,
  exceptId: number | null,
) {
  if (typeof name !== 'string' || !name) return;
  const other = await actionNamed(deps.meta, teamId, name, exceptId);
  if (other !== undefined)
    throw validationError(`This project already has an action with this name, ID ${other}`, 'name', 'unique');
}

export async function createAction(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  input: ActionInput,
): Promise<ActionRecord> {
  const steps = checkSteps(input.steps);
  await checkStepCohorts(deps, access.team.id, steps);
  await checkName(deps, access.team.id, input.name, null);
  const at = deps.now().toISOString();
  return insertAction(deps.meta, {
    teamId: access.team.id,
    name: input.name ?? null,
    description: input.description ?? '',
    tags: tagify(input.tags ?? []),
    postToSlack: input.post_to_slack ?? false,
    slackMessageFormat: input.slack_message_format ?? '',
    steps,
    deleted: input.deleted ?? false,
    createdAt: at,
    createdBy: principal.user.id,
    updatedAt: at,
    lastCalculatedAt: at,
    pinnedAt: pinnedAt(input.pinned_at) ?? null,
  });
}

/** Another project's action is a 404, as an unknown one; deleted ones are still found. */
export async function getAction(deps: Deps, access: ProjectAccess, id: number): Promise<ActionRecord> {
  const action = await findAction(deps.meta, access.team.id, id);
  if (!action) throw notFound();
  return action;
}

export function listProjectActions(
  deps: Deps,
  access: ProjectAccess,
  page: { limit: number; offset: number },
) {
  return listActions(deps.meta, access.team.id, page);
}

export async function changeAction(
  deps: Deps,
  access: ProjectAccess,
  id: number,
  input: ActionInput,
): Promise<ActionRecord> {
  const current = await getAction(deps, access, id);
  const patch: ActionPatch = { updatedAt: deps.now().toISOString() };
  if (input.steps !== undefined) {
    patch.steps = checkSteps(input.steps);
    await checkStepCohorts(deps, access.team.id, patch.steps);
  }
  if (input.name !== undefined) patch.name = input.name;
  if (input.description !== undefined) patch.description = input.description;
  if (input.tags !== undefined) patch.tags = tagify(input.tags);
  if (input.post_to_slack !== undefined) patch.postToSlack = input.post_to_slack;
  if (input.slack_message_format !== undefined) patch.slackMessageFormat = input.slack_message_format;
  if (input.deleted !== undefined) patch.deleted = input.deleted;
  if (input.pinned_at !== undefined) patch.pinnedAt = pinnedAt(input.pinned_at) ?? null;
  // A live action keeps its name unique; restoring one checks too.
  if (!(patch.deleted ?? current.deleted))
    await checkName(deps, access.team.id, patch.name ?? current.name, id);
  const updated = await updateAction(deps.meta, access.team.id, id, patch);
  if (!updated) throw notFound();
  return updated;
}

/** DELETE marks the action deleted (PostHog itself refuses DELETE and expects this PATCH). */
export async function deleteAction(deps: Deps, access: ProjectAccess, id: number): Promise<void> {
  await getAction(deps, access, id);
  await updateAction(deps.meta, access.team.id, id, { deleted: true, updatedAt: deps.now().toISOString() });
}

/** The users who created these actions, by id (a page usually has a handful of distinct creators). */
export async function actionCreators(deps: Deps, actions: ActionRecord[]): Promise<Map<number, UserRecord>> {
  return usersById(
    deps,
    actions.map((a) => a.createdBy),
  );
}

/** An action that is not deleted, for tools that read it (undefined when unknown or deleted). */
export async function findLiveAction(
  deps: Deps,
  teamId: number,
  id: number,
): Promise<ActionRecord | undefined> {
  const action = await findAction(deps.meta, teamId, id);
  return action && !action.deleted ? action : undefined;
}
