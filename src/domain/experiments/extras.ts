import { ApiError, notFound, validationError } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import {
  deleteExtra,
  type ExtraRecord,
  type ExtrasKind,
  findExtra,
  insertExtra,
  listExtras,
  updateExtra,
} from '../../store/meta/experiment-extras.js';
import type { ProjectAccess } from '../access.js';
import type { Principal } from '../principal.js';
import { checkMetric } from './query.js';

/** Holdouts and saved metrics: named JSON documents of a project, as PostHog's APIs have them. */
export interface ExtrasDeps {
  meta: MetaDb;
  now(): Date;
}

export interface ExtraInput {
  name?: string;
  description?: string | null;
  filters?: unknown;
  query?: unknown;
  metadata?: unknown;
}

/** A holdout's `filters`: groups of `{properties, rollout_percentage}`, percentages 0–100. */
function checkHoldoutFilters(raw: unknown): Record<string, unknown>[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 20)
    throw validationError('filters must be a list of 1 to 20 groups', 'filters');
  return raw.map((g) => {
    if (typeof g !== 'object' || g === null || Array.isArray(g))
      throw validationError('Each holdout group must be an object', 'filters');
    const o = g as Record<string, unknown>;
    const pct = o.rollout_percentage;
    if (typeof pct !== 'number' || !Number.isFinite(pct) || pct < 0 || pct > 100)
      throw validationError('Each holdout group needs a rollout_percentage from 0 to 100', 'filters');
    if (o.properties !== undefined && !Array.isArray(o.properties))
      throw validationError('properties must be a list of property filters', 'filters');
    return { properties: o.properties ?? [], rollout_percentage: pct, variant: o.variant ?? null };
  });
}

/** A saved metric's `query`: an `ExperimentMetric`, checked as `ExperimentQuery` checks one. */
function checkSavedQuery(raw: unknown): Record<string, unknown> {
  try {
    checkMetric(raw);
  } catch (e) {
    if (e instanceof ApiError)
      throw validationError(e.detail, (e.attr ?? 'metric').replace(/^metric/, 'query'));
    throw e;
  }
  return raw as Record<string, unknown>;
}

function bodyOf(
  kind: ExtrasKind,
  input: ExtraInput,
  current?: Record<string, unknown>,
): Record<string, unknown> {
  if (kind === 'experiment_holdouts') {
    if (input.filters === undefined && current) return current;
    return { filters: checkHoldoutFilters(input.filters) };
  }
  const query = input.query === undefined && current ? current.query : checkSavedQuery(input.query);
  const metadata =
    input.metadata === undefined
      ? (current?.metadata ?? {})
      : (input.metadata as Record<string, unknown> | null);
  if (metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata)))
    throw validationError('metadata must be an object', 'metadata');
  return { query, metadata: metadata ?? {} };
}

export async function createExtra(
  deps: ExtrasDeps,
  kind: ExtrasKind,
  access: ProjectAccess,
  principal: Principal,
  input: ExtraInput,
): Promise<ExtraRecord> {
  const name = input.name?.trim();
  if (!name) throw validationError('This field is required.', 'name', 'required');
  const body = bodyOf(kind, input);
  const at = deps.now().toISOString();
  const id = await insertExtra(deps.meta, kind, {
    teamId: access.team.id,
    name,
    description: input.description ?? '',
    body,
    createdAt: at,
    createdBy: principal.user.id,
    updatedAt: at,
  });
  return getExtra(deps, kind, access, id);
}

export async function getExtra(
  deps: ExtrasDeps,
  kind: ExtrasKind,
  access: ProjectAccess,
  id: number,
): Promise<ExtraRecord> {
  const found = await findExtra(deps.meta, kind, access.team.id, id);
  if (!found) throw notFound();
  return found;
}

export const listExtraRecords = (
  deps: ExtrasDeps,
  kind: ExtrasKind,
  access: ProjectAccess,
  page: { limit: number; offset: number },
) => listExtras(deps.meta, kind, access.team.id, page);

export async function changeExtra(
  deps: ExtrasDeps,
  kind: ExtrasKind,
  access: ProjectAccess,
  id: number,
  input: ExtraInput,
): Promise<ExtraRecord> {
  const current = await getExtra(deps, kind, access, id);
  const name = input.name === undefined ? undefined : input.name.trim();
  if (name === '') throw validationError('This field may not be blank.', 'name', 'blank');
  await updateExtra(deps.meta, kind, access.team.id, id, {
    ...(name !== undefined ? { name } : {}),
    ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
    body: bodyOf(kind, input, current.body),
    updatedAt: deps.now().toISOString(),
  });
  return getExtra(deps, kind, access, id);
}

export async function removeExtra(
  deps: ExtrasDeps,
  kind: ExtrasKind,
  access: ProjectAccess,
  id: number,
): Promise<void> {
  await getExtra(deps, kind, access, id);
  await deleteExtra(deps.meta, kind, access.team.id, id);
}

/** A holdout or saved metric an experiment names (none when it was deleted since). */
export const linkedExtra = (meta: MetaDb, kind: ExtrasKind, teamId: number, id: number) =>
  findExtra(meta, kind, teamId, id);
