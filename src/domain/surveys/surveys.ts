import { notFound, validationError } from '../../errors.js';
import { featureFlagsByIds, findFeatureFlag } from '../../store/meta/feature-flags.js';
import {
  deleteSurvey,
  findSurvey,
  insertSurvey,
  listSurveys,
  type SurveyPatch,
  type SurveyRecord,
  surveyNamed,
  updateSurvey,
} from '../../store/meta/surveys.js';
import { updateTeam } from '../../store/meta/teams.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { changeFlag, createFlag, type FlagDeps } from '../flags/flags.js';
import { newUuid, randomBase62 } from '../ids.js';
import type { Principal } from '../principal.js';
import { checkAppearance, checkConditions, checkQuestions, SURVEY_TYPES } from './validate.js';

/** Writable fields of PostHog's SurveySerializer that Burrow keeps. */
export interface SurveyInput {
  name?: string;
  description?: string;
  type?: string;
  questions?: unknown;
  conditions?: unknown;
  appearance?: unknown;
  linked_flag_id?: number | null;
  targeting_flag_filters?: unknown;
  remove_targeting_flag?: boolean;
  start_date?: string | null;
  end_date?: string | null;
  archived?: boolean;
  [setting: string]: unknown;
}

/**
 * Fields kept whole in `settings`, with PostHog's defaults: they change how often and to how many
 * people a survey shows, which posthog-js and the stats read, but nothing here computes on them.
 */
export const SURVEY_SETTINGS: Record<string, unknown> = {
  schedule: 'once',
  linked_insight_id: null,
  responses_limit: null,
  iteration_count: null,
  iteration_frequency_days: null,
  enable_partial_responses: false,
  response_sampling_start_date: null,
  response_sampling_interval_type: null,
  response_sampling_interval: null,
  response_sampling_limit: null,
};
const SCHEDULES = ['once', 'recurring', 'always'];

function checkSettings(input: SurveyInput, current: Record<string, unknown>): Record<string, unknown> {
  const out = { ...SURVEY_SETTINGS, ...current };
  for (const key of Object.keys(SURVEY_SETTINGS)) if (input[key] !== undefined) out[key] = input[key];
  if (!SCHEDULES.includes(out.schedule as string))
    throw validationError(`Schedule must be one of ${SCHEDULES.join(', ')}.`, 'schedule', 'invalid_choice');
  for (const key of ['responses_limit', 'iteration_count', 'iteration_frequency_days', 'linked_insight_id']) {
    const v = out[key];
    if (v !== null && (!Number.isInteger(v) || (v as number) < 0))
      throw validationError('A valid integer is required.', key, 'invalid');
  }
  if (typeof out.enable_partial_responses !== 'boolean')
    throw validationError('Must be a valid boolean.', 'enable_partial_responses', 'invalid');
  return out;
}

function date(v: string | null | undefined, attr: string): string | null | undefined {
  if (v === undefined || v === null) return v;
  const t = Date.parse(v);
  if (Number.isNaN(t))
    throw validationError(
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      attr,
      'invalid',
    );
  return new Date(t).toISOString();
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);

async function checkName(deps: FlagDeps, teamId: number, name: unknown, exceptId: string | null) {
  if (typeof name !== 'string' || !name.trim())
    throw validationError('This field may not be blank.', 'name', 'blank');
  if (name.length > 400) throw validationError('Ensure this field has no more than 400 characters.', 'name');
  if (await surveyNamed(deps.meta, teamId, name, exceptId))
    throw validationError('There is already a survey with this name.', 'name', 'unique');
}

async function checkLinkedFlag(deps: FlagDeps, teamId: number, id: number | null | undefined) {
  if (id === undefined || id === null) return id;
  const flag = await findFeatureFlag(deps.meta, teamId, id);
  if (!flag || flag.deleted)
    throw validationError('Feature Flag with this ID does not exist', 'linked_flag_id', 'invalid');
  return id;
}

/** The flag a survey's own targeting conditions live in (`targeting_flag_filters`). */
async function targetingFlag(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  name: string,
  filters: unknown,
) {
  const flag = await createFlag(deps, access, principal, {
    key: `survey-targeting-${randomBase62(8).toLowerCase()}`,
    name: `Targeting flag for survey ${name}`,
    filters,
  });
  return flag.id;
}

/**
 * The flag that hides a survey from whoever answered or dismissed it: posthog-js sets
 * `$survey_responded/<id>` and `$survey_dismissed/<id>` on the person when that happens. Active
 * only while the survey runs, as PostHog keeps it.
 */
async function internalTargetingFlag(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  survey: { id: string; name: string },
  running: boolean,
) {
  const unset = (key: string) => ({ key, type: 'person', value: 'is_not_set', operator: 'is_not_set' });
  const flag = await createFlag(deps, access, principal, {
    key: `survey-targeting-${slug(survey.name)}-${randomBase62(6).toLowerCase()}-custom`,
    name: `Targeting flag for survey ${survey.name}`,
    active: running,
    filters: {
      groups: [
        {
          variant: null,
          rollout_percentage: 100,
          properties: [unset(`$survey_dismissed/${survey.id}`), unset(`$survey_responded/${survey.id}`)],
        },
      ],
    },
  });
  return flag.id;
}

export const isRunning = (s: Pick<SurveyRecord, 'startDate' | 'endDate' | 'archived'>, now: Date) =>
  s.startDate !== null &&
  Date.parse(s.startDate) <= now.getTime() &&
  (s.endDate === null || Date.parse(s.endDate) > now.getTime()) &&
  !s.archived;

function checkType(type: unknown): string {
  if (!SURVEY_TYPES.includes(type as never))
    throw validationError(`"${String(type)}" is not a valid choice.`, 'type', 'invalid_choice');
  return type as string;
}

export async function createSurvey(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  input: SurveyInput,
): Promise<SurveyRecord> {
  const teamId = access.team.id;
  await checkName(deps, teamId, input.name, null);
  const name = input.name as string;
  if (input.type === undefined) throw validationError('This field is required.', 'type', 'required');
  const at = deps.now().toISOString();
  const survey: SurveyRecord = {
    id: newUuid(),
    teamId,
    name,
    description: input.description ?? '',
    type: checkType(input.type),
    questions: checkQuestions(input.questions ?? []),
    conditions: checkConditions(input.conditions),
    appearance: checkAppearance(input.appearance),
    settings: checkSettings(input, {}),
    linkedFlagId: (await checkLinkedFlag(deps, teamId, input.linked_flag_id)) ?? null,
    targetingFlagId: null,
    internalTargetingFlagId: null,
    startDate: date(input.start_date, 'start_date') ?? null,
    endDate: date(input.end_date, 'end_date') ?? null,
    archived: input.archived ?? false,
    createdAt: at,
    createdBy: principal.user.id,
    updatedAt: at,
  };
  if (input.targeting_flag_filters !== undefined && input.targeting_flag_filters !== null)
    survey.targetingFlagId = await targetingFlag(deps, access, principal, name, input.targeting_flag_filters);
  survey.internalTargetingFlagId = await internalTargetingFlag(
    deps,
    access,
    principal,
    survey,
    isRunning(survey, deps.now()),
  );
  return insertSurvey(deps.meta, survey);
}

/** Survey ids are UUIDs; anything else names no survey. */
export async function getSurvey(deps: FlagDeps, access: ProjectAccess, id: string): Promise<SurveyRecord> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw notFound();
  const survey = await findSurvey(deps.meta, access.team.id, id.toLowerCase());
  if (!survey) throw notFound();
  return survey;
}

export function listProjectSurveys(
  deps: FlagDeps,
  access: ProjectAccess,
  page: { limit: number; offset: number },
  archived?: boolean,
) {
  return listSurveys(deps.meta, access.team.id, page, archived);
}

async function dropFlag(deps: FlagDeps, access: ProjectAccess, principal: Principal, id: number | null) {
  if (id === null) return;
  const flag = await findFeatureFlag(deps.meta, access.team.id, id);
  if (flag && !flag.deleted) await changeFlag(deps, access, principal, id, { deleted: true });
}

export async function changeSurvey(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  id: string,
  input: SurveyInput,
): Promise<SurveyRecord> {
  const current = await getSurvey(deps, access, id);
  const teamId = access.team.id;
  const patch: SurveyPatch = { updatedAt: deps.now().toISOString() };
  if (input.name !== undefined) {
    await checkName(deps, teamId, input.name, id);
    patch.name = input.name;
  }
  if (input.description !== undefined) patch.description = input.description;
  if (input.type !== undefined) patch.type = checkType(input.type);
  if (input.questions !== undefined) patch.questions = checkQuestions(input.questions);
  if (input.conditions !== undefined) patch.conditions = checkConditions(input.conditions);
  if (input.appearance !== undefined) patch.appearance = checkAppearance(input.appearance);
  patch.settings = checkSettings(input, current.settings);
  if (input.linked_flag_id !== undefined)
    patch.linkedFlagId = (await checkLinkedFlag(deps, teamId, input.linked_flag_id)) ?? null;
  if (input.start_date !== undefined) patch.startDate = date(input.start_date, 'start_date') ?? null;
  if (input.end_date !== undefined) patch.endDate = date(input.end_date, 'end_date') ?? null;
  if (input.archived !== undefined) patch.archived = input.archived;

  const name = patch.name ?? current.name;
  if (input.remove_targeting_flag === true || input.targeting_flag_filters === null) {
    await dropFlag(deps, access, principal, current.targetingFlagId);
    patch.targetingFlagId = null;
  } else if (input.targeting_flag_filters !== undefined) {
    if (current.targetingFlagId !== null)
      await changeFlag(deps, access, principal, current.targetingFlagId, {
        filters: input.targeting_flag_filters,
      });
    else
      patch.targetingFlagId = await targetingFlag(
        deps,
        access,
        principal,
        name,
        input.targeting_flag_filters,
      );
  }
  const next = { ...current, ...patch };
  const running = isRunning(next, deps.now());
  const internal =
    current.internalTargetingFlagId === null
      ? undefined
      : await findFeatureFlag(deps.meta, teamId, current.internalTargetingFlagId);
  if (!internal || internal.deleted)
    patch.internalTargetingFlagId = await internalTargetingFlag(deps, access, principal, next, running);
  else if (internal.active !== running)
    await changeFlag(deps, access, principal, internal.id, { active: running });

  const updated = await updateSurvey(deps.meta, teamId, id, patch);
  if (!updated) throw notFound();
  return updated;
}

/** Deleted for good, with the flags the survey made (the linked flag is the user's and stays). */
export async function removeSurvey(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  id: string,
): Promise<void> {
  const survey = await getSurvey(deps, access, id);
  await deleteSurvey(deps.meta, access.team.id, survey.id);
  await dropFlag(deps, access, principal, survey.targetingFlagId);
  await dropFlag(deps, access, principal, survey.internalTargetingFlagId);
}

/** The flags these surveys point at, by id (a page names at most three per survey). */
export async function surveyFlags(deps: Deps, teamId: number, surveys: SurveyRecord[]) {
  const ids = surveys.flatMap((s) => [s.linkedFlagId, s.targetingFlagId, s.internalTargetingFlagId]);
  const found = await featureFlagsByIds(
    deps.meta,
    teamId,
    ids.filter((id): id is number => id !== null),
  );
  return new Map(found.map((f) => [f.id, f]));
}

/**
 * Launching a survey posthog-js shows turns the project's `surveys_opt_in` on when it was never
 * set, as PostHog does, so the SDK loads surveys without a trip to the settings. An explicit
 * `false` is left alone. True when the setting changed (the caller tells the team caches).
 */
export async function optInOnLaunch(
  deps: Deps,
  access: ProjectAccess,
  survey: SurveyRecord,
): Promise<boolean> {
  if (survey.type === 'api' || !isRunning(survey, deps.now())) return false;
  const current = access.team.settings?.surveys_opt_in;
  if (current !== undefined && current !== null) return false;
  await updateTeam(deps.meta, access.team.id, {
    settings: { surveys_opt_in: true },
    updatedAt: deps.now().toISOString(),
  });
  return true;
}
