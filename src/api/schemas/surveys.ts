import { Type } from 'typebox';
import { iterationStartDates } from '../../domain/surveys/schedule.js';
import type { FeatureFlagRecord } from '../../store/meta/feature-flags.js';
import type { SurveyRecord } from '../../store/meta/surveys.js';
import type { UserRecord } from '../../store/meta/users.js';
import { DateTime, Nullable, NullableDateTime, ProjectIdParams, toUserBasic, UserBasic } from './common.js';

export const SurveyIdParams = Type.Object({
  ...ProjectIdParams.properties,
  id: Type.String({ maxLength: 64 }),
});

const Doc = Type.Object({}, { additionalProperties: true });

/** PostHog's MinimalFeatureFlagSerializer: what a survey shows of its flags. */
export const MinimalFlag = Type.Object({
  id: Type.Integer(),
  team_id: Type.Integer(),
  name: Type.String(),
  key: Type.String(),
  filters: Doc,
  deleted: Type.Boolean(),
  active: Type.Boolean(),
  ensure_experience_continuity: Type.Boolean(),
});

export const toMinimalFlag = (f: FeatureFlagRecord | undefined) =>
  f === undefined || f.deleted
    ? null
    : {
        id: f.id,
        team_id: f.teamId,
        name: f.name,
        key: f.key,
        filters: f.filters,
        deleted: f.deleted,
        active: f.active,
        ensure_experience_continuity: f.ensureExperienceContinuity,
      };

const NullableInt = Nullable(Type.Integer());

export const Survey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.String(),
  schedule: Type.String(),
  linked_flag: Nullable(MinimalFlag),
  linked_flag_id: NullableInt,
  linked_insight_id: NullableInt,
  targeting_flag: Nullable(MinimalFlag),
  internal_targeting_flag: Nullable(MinimalFlag),
  questions: Type.Array(Doc),
  conditions: Nullable(Doc),
  appearance: Nullable(Doc),
  created_at: DateTime,
  created_by: Nullable(UserBasic),
  start_date: NullableDateTime,
  end_date: NullableDateTime,
  archived: Type.Boolean(),
  responses_limit: NullableInt,
  feature_flag_keys: Type.Array(Type.Object({ key: Type.String(), value: Nullable(Type.String()) })),
  iteration_count: NullableInt,
  iteration_frequency_days: NullableInt,
  iteration_start_dates: Type.Array(DateTime),
  current_iteration: NullableInt,
  current_iteration_start_date: NullableDateTime,
  enable_partial_responses: Type.Boolean(),
  response_sampling_start_date: NullableDateTime,
  response_sampling_interval_type: Nullable(Type.String()),
  response_sampling_interval: NullableInt,
  response_sampling_limit: NullableInt,
});

const Anything = Type.Unknown();
export const SurveyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 400 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    type: Type.Optional(
      Type.String({ maxLength: 40, description: 'popover, widget, external_survey or api' }),
    ),
    questions: Type.Optional(
      Type.Unknown({ description: 'Questions: open, link, rating, single_choice, multiple_choice' }),
    ),
    conditions: Type.Optional(Anything),
    appearance: Type.Optional(Anything),
    linked_flag_id: Type.Optional(NullableInt),
    targeting_flag_filters: Type.Optional(
      Type.Unknown({ description: "Flag filters for the survey's own targeting flag; null removes it" }),
    ),
    remove_targeting_flag: Type.Optional(Type.Boolean()),
    start_date: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    end_date: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    archived: Type.Optional(Type.Boolean()),
    schedule: Type.Optional(Type.String({ maxLength: 20 })),
    linked_insight_id: Type.Optional(NullableInt),
    responses_limit: Type.Optional(NullableInt),
    iteration_count: Type.Optional(NullableInt),
    iteration_frequency_days: Type.Optional(NullableInt),
    enable_partial_responses: Type.Optional(Type.Boolean()),
    response_sampling_start_date: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    response_sampling_interval_type: Type.Optional(Nullable(Type.String({ maxLength: 20 }))),
    response_sampling_interval: Type.Optional(NullableInt),
    response_sampling_limit: Type.Optional(NullableInt),
    _create_in_folder: Type.Optional(Type.String({ maxLength: 400, description: 'Accepted and ignored' })),
  },
  { additionalProperties: false },
);

export type SurveyFlags = Map<number, FeatureFlagRecord>;

const flagOf = (flags: SurveyFlags, id: number | null) => (id === null ? undefined : flags.get(id));

export function toSurvey(s: SurveyRecord, flags: SurveyFlags, createdBy: UserRecord | null) {
  const linked = toMinimalFlag(flagOf(flags, s.linkedFlagId));
  const targeting = toMinimalFlag(flagOf(flags, s.targetingFlagId));
  const internal = toMinimalFlag(flagOf(flags, s.internalTargetingFlagId));
  const set = s.settings;
  const int = (k: string) => (typeof set[k] === 'number' ? (set[k] as number) : null);
  const str = (k: string) => (typeof set[k] === 'string' ? (set[k] as string) : null);
  return {
    id: s.id,
    name: s.name,
    description: s.description,
    type: s.type,
    schedule: str('schedule') ?? 'once',
    linked_flag: linked,
    linked_flag_id: linked ? s.linkedFlagId : null,
    linked_insight_id: int('linked_insight_id'),
    targeting_flag: targeting,
    internal_targeting_flag: internal,
    questions: s.questions,
    conditions: s.conditions,
    appearance: s.appearance,
    created_at: s.createdAt,
    created_by: createdBy ? toUserBasic(createdBy) : null,
    start_date: s.startDate,
    end_date: s.endDate,
    archived: s.archived,
    responses_limit: int('responses_limit'),
    feature_flag_keys: [
      { key: 'linked_flag_key', value: linked?.key ?? null },
      { key: 'targeting_flag_key', value: targeting?.key ?? null },
      { key: 'internal_targeting_flag_key', value: internal?.key ?? null },
    ],
    iteration_count: int('iteration_count'),
    iteration_frequency_days: int('iteration_frequency_days'),
    iteration_start_dates: iterationStartDates(s),
    current_iteration: int('current_iteration'),
    current_iteration_start_date: str('current_iteration_start_date'),
    enable_partial_responses: set.enable_partial_responses === true,
    response_sampling_start_date: str('response_sampling_start_date'),
    response_sampling_interval_type: str('response_sampling_interval_type'),
    response_sampling_interval: int('response_sampling_interval'),
    response_sampling_limit: int('response_sampling_limit'),
  };
}
