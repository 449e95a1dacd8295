import type { TeamRecord } from '../store/meta/teams.js';

/**
 * What posthog-js reads at start-up (`/array/{token}/config`, `/flags?config=true`, `/decide`);
 * session recording follows the project setting.
 */
export function remoteConfig(team: TeamRecord, hasFeatureFlags = false) {
  return {
    token: team.apiToken,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
    sessionRecording: team.sessionRecordingOptIn
      ? {
          endpoint: '/s/',
          consoleLogRecordingEnabled: true,
          recorderVersion: 'v2',
          sampleRate: null,
          minimumDurationMilliseconds: null,
          linkedFlag: null,
          networkPayloadCapture: null,
          urlTriggers: [],
          urlBlocklist: [],
          eventTriggers: [],
        }
      : false,
  };
}
