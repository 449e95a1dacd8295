import { notFound, validationError } from '../../errors.js';
import {
  deleteEarlyAccessFeature,
  type EarlyAccessFeatureRecord,
  type EarlyAccessPatch,
  earlyAccessFeatureOfFlag,
  findEarlyAccessFeature,
  insertEarlyAccessFeature,
  listEarlyAccessFeatures,
  updateEarlyAccessFeature,
} from '../../store/meta/early-access.js';
import { featureFlagsByIds, findFeatureFlag } from '../../store/meta/feature-flags.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { changeFlag, createFlag, type FlagDeps } from '../flags/flags.js';
import { newUuid } from '../ids.js';
import type { Principal } from '../principal.js';

/** PostHog's stages; people can opt in to a feature in the middle ones. */
export const STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'] as const;
const ENROLLING = new Set(['concept', 'alpha', 'beta', 'general-availability']);

export interface EarlyAccessInput {
  name?: string;
  description?: string;
  stage?: string;
  documentation_url?: string;
  payload?: object;
  feature_flag_id?: number | null;
}

/** The person property posthog-js sets when someone opts in or out (`updateEarlyAccessFeatureEnrollment`). */
export const enrollmentProperty = (flagKey: string) => `$feature_enrollment/${flagKey}`;

/**
 * The flag condition that follows enrolment, as PostHog adds it: a super group on the person
 * property, decided before the flag's own conditions for anyone who has the property at all.
 */
function withEnrollment(filters: Record<string, unknown>, flagKey: string, enrolling: boolean) {
  const { super_groups: _drop, ...rest } = filters;
  if (!enrolling) return { groups: [], ...rest };
  return {
    groups: [],
    ...rest,
    super_groups: [
      {
        properties: [
          { key: enrollmentProperty(flagKey), type: 'person', operator: 'exact', value: ['true'] },
        ],
        rollout_percentage: 100,
      },
    ],
  };
}

function checkStage(stage: unknown): string {
  if (!STAGES.includes(stage as never))
    throw validationError(`"${String(stage)}" is not a valid choice.`, 'stage', 'invalid_choice');
  return stage as string;
}

function checkUrl(v: string | undefined): string | undefined {
  if (v === undefined || v === '') return v;
  try {
    if (['http:', 'https:'].includes(new URL(v).protocol)) return v;
  } catch {}
  throw validationError('Enter a valid URL.', 'documentation_url', 'invalid');
}

const slug = (name: string) => name.trim().toLowerCase().replace(/\s+/g, '-');

async function setEnrollment(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  flagId: number | null,
  stage: string,
) {
  if (flagId === null) return;
  const flag = await findFeatureFlag(deps.meta, access.team.id, flagId);
  if (!flag || flag.deleted) return;
  await changeFlag(deps, access, principal, flag.id, {
    filters: withEnrollment(flag.filters, flag.key, ENROLLING.has(stage)),
  });
}

export async function createEarlyAccessFeature(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  input: EarlyAccessInput,
): Promise<EarlyAccessFeatureRecord> {
  const teamId = access.team.id;
  if (typeof input.name !== 'string' || !input.name.trim())
    throw validationError('This field is required.', 'name', 'required');
  if (input.stage === undefined) throw validationError('This field is required.', 'stage', 'required');
  const stage = checkStage(input.stage);
  let flagId: number;
  if (input.feature_flag_id !== undefined && input.feature_flag_id !== null) {
    const flag = await findFeatureFlag(deps.meta, teamId, input.feature_flag_id);
    if (!flag || flag.deleted)
      throw validationError('Feature Flag with this ID does not exist', 'feature_flag_id', 'invalid');
    if ((flag.filters as { multivariate?: unknown }).multivariate)
      throw validationError(
        'Multivariate feature flags are not supported for early access features.',
        'feature_flag_id',
      );
    const other = await earlyAccessFeatureOfFlag(deps.meta, teamId, flag.id);
    if (other)
      throw validationError(
        `Linked feature flag ${flag.key} already has a feature attached to it.`,
        'feature_flag_id',
      );
    flagId = flag.id;
  } else {
    const flag = await createFlag(deps, access, principal, {
      key: slug(input.name),
      name: `Feature flag for ${input.name}`,
      filters: { groups: [{ properties: [], rollout_percentage: 0 }] },
    });
    flagId = flag.id;
  }
  const feature = await insertEarlyAccessFeature(deps.meta, {
    id: newUuid(),
    teamId,
    featureFlagId: flagId,
    name: input.name,
    description: input.description ?? '',
    stage,
    documentationUrl: checkUrl(input.documentation_url) ?? '',
    payload: (input.payload ?? {}) as Record<string, unknown>,
    createdAt: deps.now().toISOString(),
  });
  await setEnrollment(deps, access, principal, flagId, stage);
  return feature;
}

export async function getEarlyAccessFeature(deps: Deps, access: ProjectAccess, id: string) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound();
  const feature = await findEarlyAccessFeature(deps.meta, access.team.id, id.toLowerCase());
  if (!feature) throw notFound();
  return feature;
}

export function listProjectEarlyAccess(
  deps: Deps,
  access: ProjectAccess,
  page: { limit: number; offset: number },
) {
  return listEarlyAccessFeatures(deps.meta, access.team.id, page);
}

export async function changeEarlyAccessFeature(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  id: string,
  input: EarlyAccessInput,
): Promise<EarlyAccessFeatureRecord> {
  const current = await getEarlyAccessFeature(deps, access, id);
  const patch: EarlyAccessPatch = {};
  if (input.name !== undefined) {
    if (!input.name.trim()) throw validationError('This field may not be blank.', 'name', 'blank');
    patch.name = input.name;
  }
  if (input.description !== undefined) patch.description = input.description;
  if (input.stage !== undefined) patch.stage = checkStage(input.stage);
  if (input.documentation_url !== undefined) patch.documentationUrl = checkUrl(input.documentation_url) ?? '';
  if (input.payload !== undefined) patch.payload = input.payload as Record<string, unknown>;
  const updated = await updateEarlyAccessFeature(deps.meta, access.team.id, current.id, patch);
  if (!updated) throw notFound();
  if (patch.stage !== undefined && patch.stage !== current.stage)
    await setEnrollment(deps, access, principal, current.featureFlagId, patch.stage);
  return updated;
}

/** Deleted for good; its flag stays, without the enrolment condition (PostHog's destroy). */
export async function removeEarlyAccessFeature(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  id: string,
): Promise<void> {
  const feature = await getEarlyAccessFeature(deps, access, id);
  await deleteEarlyAccessFeature(deps.meta, access.team.id, feature.id);
  await setEnrollment(deps, access, principal, feature.featureFlagId, 'draft');
}

export async function featureFlagsOf(deps: Deps, teamId: number, features: EarlyAccessFeatureRecord[]) {
  const ids = features.map((f) => f.featureFlagId).filter((id): id is number => id !== null);
  return new Map((await featureFlagsByIds(deps.meta, teamId, ids)).map((f) => [f.id, f]));
}

/** `GET /api/early_access_features/?token=`: what posthog-js lists (draft and archived never). */
export async function earlyAccessForSdk(deps: Deps, team: TeamRecord, stages: string[]) {
  const wanted = stages.length > 0 ? stages.filter((s) => ENROLLING.has(s)) : [...ENROLLING];
  const { results } = await listEarlyAccessFeatures(deps.meta, team.id, { limit: 1000, offset: 0 }, wanted);
  const flags = await featureFlagsOf(deps, team.id, results);
  return {
    earlyAccessFeatures: results.map((f) => {
      const flag = f.featureFlagId === null ? undefined : flags.get(f.featureFlagId);
      return {
        id: f.id,
        name: f.name,
        description: f.description,
        stage: f.stage,
        documentationUrl: f.documentationUrl,
        payload: f.payload,
        flagKey: flag && !flag.deleted ? flag.key : null,
      };
    }),
  };
}
