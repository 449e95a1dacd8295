import { conflict, notFound, validationError } from '../../errors.js';
import { isUniqueViolation } from '../../store/meta/errors.js';
import { runningExperimentsOnFlag } from '../../store/meta/experiments.js';
import {
  type FeatureFlagPatch,
  type FeatureFlagRecord,
  findFeatureFlag,
  findFeatureFlagByKey,
  insertFeatureFlag,
  listFeatureFlags,
  updateFeatureFlag,
} from '../../store/meta/feature-flags.js';
import type { ProjectAccess } from '../access.js';
import { checkCohortReferences, cohortIdsIn } from '../cohorts/references.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import type { FlagCache } from './cache.js';
import type { FlagFilters } from './types.js';
import { checkFilters, checkKey } from './validate.js';

/** Writable fields of PostHog's FeatureFlagSerializer that Burrow keeps. */
export interface FlagInput {
  key?: string;
  name?: string;
  filters?: unknown;
  active?: boolean;
  deleted?: boolean;
  ensure_experience_continuity?: boolean;
  evaluation_runtime?: 'server' | 'client' | 'all';
  tags?: string[];
  /** The version the editor started from; with `original_flag`, a stale edit is refused (409). */
  version?: number;
  original_flag?: Record<string, unknown>;
}

export interface FlagDeps extends Deps {
  flags: FlagCache;
}

/** Every cohort the flag's conditions name must be one of this project's (a 400, not a failing flag). */
function checkFlagCohorts(deps: Deps, teamId: number, filters: FlagFilters) {
  const conditions = [...(filters.groups ?? []), ...(filters.super_groups ?? [])].map(
    (g) => g.properties ?? [],
  );
  return checkCohortReferences(deps, teamId, cohortIdsIn(conditions), 'filters');
}

const tagify = (tags: string[]) => [...new Set(tags.map((t) => t.trim().toLowerCase()).filter(Boolean))];
const duplicate = () => validationError('There is already a feature flag with this key.', 'key', 'unique');

async function keyIsFree(deps: Deps, teamId: number, key: string, exceptId: number | null) {
  const other = await findFeatureFlagByKey(deps.meta, teamId, key);
  if (other && other.id !== exceptId) throw duplicate();
}

export async function createFlag(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  input: FlagInput,
): Promise<FeatureFlagRecord> {
  if (input.key === undefined) throw validationError('This field is required.', 'key', 'required');
  const key = checkKey(input.key);
  const filters = checkFilters(input.filters ?? { groups: [] }, true);
  await checkFlagCohorts(deps, access.team.id, filters);
  await keyIsFree(deps, access.team.id, key, null);
  const at = deps.now().toISOString();
  let created: FeatureFlagRecord;
  try {
    created = await insertFeatureFlag(deps.meta, {
      teamId: access.team.id,
      key,
      name: input.name ?? '',
      filters: filters as Record<string, unknown>,
      active: input.active ?? true,
      deleted: input.deleted ?? false,
      ensureExperienceContinuity: input.ensure_experience_continuity ?? false,
      evaluationRuntime: input.evaluation_runtime ?? 'all',
      tags: tagify(input.tags ?? []),
      version: 1,
      createdAt: at,
      createdBy: principal.user.id,
      updatedAt: at,
      lastModifiedBy: principal.user.id,
    });
  } catch (error) {
    // Two creates with one key at once: the partial unique index on live keys (the table's only
    // unique index besides the generated id) decides.
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
  await deps.flags.changed(access.team.id);
  return created;
}

/** By id, or by key among live flags (PostHog's `{id}` path also takes a key for some actions). */
export async function getFlag(
  deps: Deps,
  access: ProjectAccess,
  idOrKey: string,
): Promise<FeatureFlagRecord> {
  const flag = /^\d{1,10}$/.test(idOrKey)
    ? await findFeatureFlag(deps.meta, access.team.id, Number(idOrKey))
    : await findFeatureFlagByKey(deps.meta, access.team.id, idOrKey);
  if (!flag) throw notFound();
  return flag;
}

export function listFlags(
  deps: Deps,
  access: ProjectAccess,
  query: { search?: string; active?: 'true' | 'false' | 'STALE'; limit: number; offset: number },
) {
  return listFeatureFlags(deps.meta, access.team.id, {
    search: query.search?.trim() || undefined,
    active: query.active === 'true' ? true : query.active === 'false' ? false : undefined,
    limit: query.limit,
    offset: query.offset,
  });
}

/** Fields whose change by someone else makes an edit started from `original_flag` stale. */
const CONFLICT_FIELDS: Array<[keyof FlagInput, keyof FeatureFlagRecord]> = [
  ['key', 'key'],
  ['name', 'name'],
  ['filters', 'filters'],
  ['active', 'active'],
  ['ensure_experience_continuity', 'ensureExperienceContinuity'],
];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export async function changeFlag(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  id: number,
  input: FlagInput,
): Promise<FeatureFlagRecord> {
  const current = await getFlag(deps, access, String(id));
  // PostHog's check: only fields this editor changes that someone else changed meanwhile conflict.
  if (input.version !== undefined && input.version !== current.version && input.original_flag) {
    const original = input.original_flag;
    const clashes = CONFLICT_FIELDS.filter(
      ([field, column]) =>
        input[field] !== undefined &&
        field in original &&
        !same(input[field], original[field]) &&
        !same(original[field], current[column]) &&
        !same(input[field], current[column]),
    );
    if (clashes.length > 0)
      throw conflict(
        'The feature flag was updated by another user since you started editing it. Please refresh and try again.',
      );
  }
  const patch: FeatureFlagPatch = { updatedAt: deps.now().toISOString(), lastModifiedBy: principal.user.id };
  if (input.key !== undefined) patch.key = checkKey(input.key);
  // As PostHog: a PATCH whose filters carry no `groups` leaves the filters as they are.
  if (
    input.filters !== undefined &&
    !(typeof input.filters === 'object' && input.filters !== null && !('groups' in input.filters))
  ) {
    const filters = checkFilters(input.filters, false);
    await checkFlagCohorts(deps, access.team.id, filters);
    patch.filters = filters as Record<string, unknown>;
  }
  if (input.name !== undefined) patch.name = input.name;
  if (input.active !== undefined) patch.active = input.active;
  if (input.deleted !== undefined) patch.deleted = input.deleted;
  if (input.ensure_experience_continuity !== undefined)
    patch.ensureExperienceContinuity = input.ensure_experience_continuity;
  if (input.evaluation_runtime !== undefined) patch.evaluationRuntime = input.evaluation_runtime;
  if (input.tags !== undefined) patch.tags = tagify(input.tags);
  // PostHog refuses to delete the flag of a running experiment: its exposures would stop.
  if (
    patch.deleted &&
    !current.deleted &&
    (await runningExperimentsOnFlag(deps.meta, access.team.id, id)) > 0
  )
    throw validationError(
      'Cannot delete a feature flag that is linked to a running experiment; stop the experiment first.',
      'deleted',
    );
  if (!(patch.deleted ?? current.deleted))
    await keyIsFree(deps, access.team.id, patch.key ?? current.key, id);
  let updated: FeatureFlagRecord | undefined;
  try {
    updated = await updateFeatureFlag(deps.meta, access.team.id, id, patch);
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
  if (!updated) throw notFound();
  await deps.flags.changed(access.team.id);
  return updated;
}
