import { teamSettings } from '../domain/organizations/team-settings.js';
import type { TeamRecord } from '../store/meta/teams.js';

export interface RemoteConfigState {
  hasFeatureFlags: boolean;
  /** The project has a running survey posthog-js could show (not `api` ones). */
  hasActiveSurveys: boolean;
}

const on = (v: unknown) => v === true;

/**
 * What posthog-js reads at start-up (`/array/{token}/config`, `/flags?config=true`, `/decide`),
 * built from the project's settings as PostHog's remote config builds it, so each switch turns the
 * matching SDK feature (and its lazily loaded bundle) on without any `init()` option.
 */
export function remoteConfig(
  team: TeamRecord,
  state: RemoteConfigState = { hasFeatureFlags: false, hasActiveSurveys: false },
) {
  const s = teamSettings(team.settings);
  const webVitals = on(s.autocapture_web_vitals_opt_in);
  const networkTiming = on(s.capture_performance_opt_in);
  const exceptions = on(s.autocapture_exceptions_opt_in);
  return {
    token: team.apiToken,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags: state.hasFeatureFlags,
    captureDeadClicks: on(s.capture_dead_clicks),
    capturePerformance:
      networkTiming || webVitals
        ? {
            network_timing: networkTiming,
            web_vitals: webVitals,
            web_vitals_allowed_metrics: s.autocapture_web_vitals_allowed_metrics ?? null,
          }
        : false,
    autocapture_opt_out: on(s.autocapture_opt_out),
    autocaptureExceptions: exceptions,
    errorTracking: {
      autocaptureExceptions: exceptions,
      suppressionRules: Array.isArray(s.autocapture_exceptions_errors_to_ignore)
        ? s.autocapture_exceptions_errors_to_ignore
        : [],
    },
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    heatmaps: on(s.heatmaps_opt_in),
    // Only when opted in and something could show: otherwise posthog-js skips surveys.js entirely.
    surveys: on(s.surveys_opt_in) && state.hasActiveSurveys,
    defaultIdentifiedOnly: true,
    flagsPersistenceDefault: on(s.flags_persistence_default),
    siteApps: [],
    sessionRecording: team.sessionRecordingOptIn
      ? {
          endpoint: '/s/',
          consoleLogRecordingEnabled: on(s.capture_console_log_opt_in),
          recorderVersion: 'v2',
          sampleRate: s.session_recording_sample_rate ?? null,
          minimumDurationMilliseconds: s.session_recording_minimum_duration_milliseconds ?? null,
          linkedFlag: linkedFlag(s.session_recording_linked_flag),
          networkPayloadCapture: s.session_recording_network_payload_capture_config ?? null,
          masking: s.session_recording_masking_config ?? null,
          urlTriggers: s.session_recording_url_trigger_config ?? [],
          urlBlocklist: s.session_recording_url_blocklist_config ?? [],
          eventTriggers: s.session_recording_event_trigger_config ?? [],
          triggerMatchType: s.session_recording_trigger_match_type_config ?? null,
        }
      : false,
  };
}

/** The setting is `{id, key, variant}`; the SDK wants the key, or `{flag, variant}` for a variant. */
function linkedFlag(v: unknown): string | { flag: string; variant: string } | null {
  if (typeof v !== 'object' || v === null) return null;
  const { key, variant } = v as { key?: unknown; variant?: unknown };
  if (typeof key !== 'string') return null;
  return typeof variant === 'string' && variant ? { flag: key, variant } : key;
}
