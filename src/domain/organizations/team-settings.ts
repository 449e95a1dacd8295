/**
 * PostHog project settings Burrow stores and returns without acting on them yet: the SDK switches
 * of remote config (surveys, heatmaps, dead clicks, exception autocapture, ...), recording
 * triggers, onboarding state, display options. They live in one JSON column (`teams.settings`)
 * under PostHog's names, so a client that writes one reads it back and a later feature can start
 * honouring it without a migration. Values are PostHog's defaults until written.
 */
export const TEAM_SETTING_DEFAULTS = {
  app_urls: [],
  completed_snippet_onboarding: false,
  path_cleaning_filters: [],
  data_attributes: ['data-attr'],
  person_display_name_properties: null,
  correlation_config: {},
  autocapture_opt_out: false,
  autocapture_exceptions_opt_in: null,
  autocapture_web_vitals_opt_in: null,
  autocapture_web_vitals_allowed_metrics: null,
  autocapture_exceptions_errors_to_ignore: null,
  capture_console_log_opt_in: true,
  capture_performance_opt_in: true,
  session_recording_sample_rate: null,
  session_recording_minimum_duration_milliseconds: null,
  session_recording_linked_flag: null,
  session_recording_network_payload_capture_config: null,
  session_recording_masking_config: null,
  session_recording_url_trigger_config: [],
  session_recording_url_blocklist_config: [],
  session_recording_event_trigger_config: [],
  session_recording_trigger_match_type_config: null,
  session_replay_config: null,
  survey_config: null,
  live_events_columns: null,
  recording_domains: null,
  human_friendly_comparison_periods: false,
  inject_web_apps: false,
  extra_settings: null,
  has_completed_onboarding_for: null,
  surveys_opt_in: null,
  heatmaps_opt_in: null,
  capture_dead_clicks: false,
  flags_persistence_default: false,
  feature_flag_confirmation_enabled: false,
  feature_flag_confirmation_message: null,
  onboarding_tasks: {},
  primary_dashboard: null,
  default_data_theme: null,
  business_model: null,
  // Where actions with `post_to_slack` post their message (domain/destinations/action-webhooks.ts).
  slack_incoming_webhook: null,
  // PostHog's recording retention choice ('30d', '90d', '1y', '5y'); null: kept for ever.
  session_recording_retention_period: null,
  // Burrow's own: days of events (and sessions, logs) kept; null: everything.
  events_retention_days: null,
  // Burrow's own: per-project LLM model prices (USD per token) over the price table, as
  // `[{model, prompt_token, completion_token, cache_read_token?, cache_write_token?}]`; null: none.
  llm_custom_model_prices: null,
} as const satisfies Record<string, unknown>;

export type TeamSettingName = keyof typeof TEAM_SETTING_DEFAULTS;
export type TeamSettings = { [K in TeamSettingName]: unknown };

/** The stored settings over PostHog's defaults; names no longer known are left out. */
export function teamSettings(stored: Record<string, unknown> | null): TeamSettings {
  const out: Record<string, unknown> = { ...TEAM_SETTING_DEFAULTS };
  if (stored)
    for (const [key, value] of Object.entries(stored)) if (key in TEAM_SETTING_DEFAULTS) out[key] = value;
  return out as TeamSettings;
}

/** The settings of a PATCH body, in the form they are stored (the sample rate as PostHog's "0.50"). */
export function settingsPatch(input: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(TEAM_SETTING_DEFAULTS)) {
    const value = input[key];
    if (value === undefined) continue;
    out[key] = key === 'session_recording_sample_rate' && value !== null ? Number(value).toFixed(2) : value;
  }
  return Object.keys(out).length ? out : undefined;
}
