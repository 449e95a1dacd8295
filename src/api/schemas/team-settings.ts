import { type Static, type TSchema, Type } from 'typebox';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../domain/data-lifecycle/retention.js';
import type { TeamSettingName } from '../../domain/organizations/team-settings.js';
import { Nullable } from './common.js';

const Json = Type.Record(Type.String(), Type.Unknown());
const Strings = Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 1000 });
const Objects = Type.Array(Json, { maxItems: 1000 });
const Flag = Nullable(Type.Boolean());

const UsdPerToken = Type.Number({ minimum: 0, maximum: 1 });
/** A project's own price for a model (domain/llm-analytics/cost.ts), USD per token. */
export const LlmModelPrice = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200 }),
    prompt_token: UsdPerToken,
    completion_token: UsdPerToken,
    cache_read_token: Type.Optional(UsdPerToken),
    cache_write_token: Type.Optional(UsdPerToken),
  },
  { additionalProperties: false },
);

/** The type of each stored PostHog setting (see domain/organizations/team-settings.ts). */
export const TEAM_SETTING_TYPES = {
  app_urls: Type.Array(Nullable(Type.String({ maxLength: 2000 })), { maxItems: 1000 }),
  completed_snippet_onboarding: Type.Boolean(),
  path_cleaning_filters: Nullable(Objects),
  data_attributes: Strings,
  person_display_name_properties: Nullable(Strings),
  correlation_config: Nullable(Json),
  autocapture_opt_out: Flag,
  autocapture_exceptions_opt_in: Flag,
  autocapture_web_vitals_opt_in: Flag,
  autocapture_web_vitals_allowed_metrics: Nullable(Strings),
  autocapture_exceptions_errors_to_ignore: Nullable(Strings),
  capture_console_log_opt_in: Flag,
  capture_performance_opt_in: Flag,
  session_recording_sample_rate: Type.Union([
    Type.Number({ minimum: 0, maximum: 1 }),
    Type.String({ pattern: '^(0(\\.\\d{1,2})?|1(\\.0{1,2})?)$' }),
    Type.Null(),
  ]),
  session_recording_minimum_duration_milliseconds: Nullable(Type.Integer({ minimum: 0, maximum: 30_000 })),
  session_recording_linked_flag: Nullable(Json),
  session_recording_network_payload_capture_config: Nullable(Json),
  session_recording_masking_config: Nullable(Json),
  session_recording_url_trigger_config: Nullable(Objects),
  session_recording_url_blocklist_config: Nullable(Objects),
  session_recording_event_trigger_config: Nullable(Strings),
  session_recording_trigger_match_type_config: Type.Union([
    Type.Literal('all'),
    Type.Literal('any'),
    Type.Null(),
  ]),
  session_replay_config: Nullable(Json),
  survey_config: Nullable(Json),
  live_events_columns: Nullable(Strings),
  recording_domains: Nullable(Type.Array(Nullable(Type.String({ maxLength: 200 })), { maxItems: 1000 })),
  human_friendly_comparison_periods: Flag,
  inject_web_apps: Flag,
  extra_settings: Nullable(Json),
  has_completed_onboarding_for: Nullable(Json),
  surveys_opt_in: Flag,
  heatmaps_opt_in: Flag,
  capture_dead_clicks: Flag,
  flags_persistence_default: Flag,
  feature_flag_confirmation_enabled: Flag,
  feature_flag_confirmation_message: Nullable(Type.String({ maxLength: 5000 })),
  onboarding_tasks: Nullable(Json),
  primary_dashboard: Nullable(Type.Integer()),
  default_data_theme: Nullable(Type.Integer()),
  slack_incoming_webhook: Nullable(Type.String({ maxLength: 500 })),
  business_model: Type.Union([Type.Literal('b2b'), Type.Literal('b2c'), Type.Literal('other'), Type.Null()]),
  session_recording_retention_period: Type.Union([
    Type.Literal('30d'),
    Type.Literal('90d'),
    Type.Literal('1y'),
    Type.Literal('5y'),
    Type.Null(),
  ]),
  events_retention_days: Nullable(Type.Integer({ minimum: MIN_RETENTION_DAYS, maximum: MAX_RETENTION_DAYS })),
  llm_custom_model_prices: Nullable(Type.Array(LlmModelPrice, { maxItems: 500 })),
} satisfies Record<TeamSettingName, TSchema>;

/** The settings as request fields (each optional). */
export const TeamSettingsInput = Type.Partial(Type.Object(TEAM_SETTING_TYPES)).properties;
/** The settings as response fields: the sample rate comes back as PostHog's decimal text. */
export const TeamSettingsOutput = {
  ...TEAM_SETTING_TYPES,
  session_recording_sample_rate: Nullable(Type.String()),
};
const SettingsOut = Type.Object(TeamSettingsOutput);
/** The stored settings typed as the response declares them (they were validated on the way in). */
export const settingsOut = (settings: Record<string, unknown>) => settings as Static<typeof SettingsOut>;

/**
 * Fields PostHog's TeamSerializer declares read-only (or computes): DRF ignores them in a write,
 * so a client may send back the object it read. Burrow ignores them too.
 */
export const TEAM_READ_ONLY_FIELDS = [
  'id',
  'uuid',
  'organization',
  'project_id',
  'api_token',
  'secret_api_token',
  'secret_api_token_backup',
  'created_at',
  'updated_at',
  'ingested_event',
  'effective_membership_level',
  'has_group_types',
  'group_types',
  'default_modifiers',
  'person_on_events_querying_enabled',
  'live_events_token',
  'user_access_level',
  'product_intents',
  'managed_viewsets',
  'available_setup_task_ids',
  'event_retention_months',
  'events_retention_enforced',
] as const;
export const TeamReadOnlyInput = Object.fromEntries(
  TEAM_READ_ONLY_FIELDS.map((k) => [k, Type.Optional(Type.Unknown())]),
);
