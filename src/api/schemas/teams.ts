import { Type } from 'typebox';
import { teamSettings } from '../../domain/organizations/team-settings.js';
import { effectiveModifiers } from '../../domain/query/hogql-runner.js';
import { REJECT_UNKNOWN_FIELDS } from '../../server/validation.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { DateTime, Nullable, Uuid } from './common.js';
import { settingsOut, TeamReadOnlyInput, TeamSettingsInput, TeamSettingsOutput } from './team-settings.js';

export const Team = Type.Object({
  id: Type.Integer(),
  uuid: Uuid,
  organization: Uuid,
  project_id: Type.Integer(),
  api_token: Type.String({ description: 'Project API key (phc_...) used by SDKs to send events' }),
  name: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  timezone: Type.String(),
  week_start_day: Nullable(Type.Integer()),
  is_demo: Type.Boolean(),
  anonymize_ips: Type.Boolean(),
  session_recording_opt_in: Type.Boolean(),
  test_account_filters: Type.Array(Type.Unknown()),
  test_account_filters_default_checked: Type.Boolean(),
  modifiers: Nullable(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        "The project's default HogQL modifiers, e.g. personsOnEventsMode; a query's own modifiers override them",
    }),
  ),
  default_modifiers: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The modifiers queries of this project get when they set none',
  }),
  person_on_events_querying_enabled: Type.Boolean({
    description: 'Whether person properties are read from the events (point in time) by default',
  }),
  access_control: Type.Boolean(),
  ...TeamSettingsOutput,
});

/**
 * Writable project fields: Burrow's own, PostHog's stored settings, and PostHog's read-only fields
 * (ignored, as DRF ignores them). Any other field is a 400 naming it: a setting silently dropped
 * looks saved to the client that sent it.
 */
export const TeamInput = Type.Object(
  {
    ...TeamReadOnlyInput,
    ...TeamSettingsInput,
    is_demo: Type.Optional(Type.Boolean()),
    access_control: Type.Optional(
      Type.Boolean({ description: 'Only false: Burrow has no per-project access control' }),
    ),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    timezone: Type.Optional(Type.String()),
    week_start_day: Type.Optional(Nullable(Type.Integer())),
    session_recording_opt_in: Type.Optional(Type.Boolean()),
    anonymize_ips: Type.Optional(Type.Boolean()),
    test_account_filters: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Unknown()))),
    test_account_filters_default_checked: Type.Optional(Type.Boolean()),
    modifiers: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  },
  { additionalProperties: false, ...REJECT_UNKNOWN_FIELDS },
);

export const TeamBasic = Type.Object({
  id: Type.Integer(),
  uuid: Uuid,
  organization: Uuid,
  project_id: Type.Integer(),
  api_token: Type.String(),
  name: Type.String(),
  timezone: Type.String(),
});

export function toTeam(team: TeamRecord) {
  const defaults = effectiveModifiers(team.modifiers ?? undefined);
  return {
    id: team.id,
    uuid: team.uuid,
    organization: team.organizationId,
    project_id: team.id,
    api_token: team.apiToken,
    name: team.name,
    created_at: team.createdAt,
    updated_at: team.updatedAt,
    timezone: team.timezone,
    week_start_day: team.weekStartDay,
    is_demo: team.isDemo,
    anonymize_ips: team.anonymizeIps,
    session_recording_opt_in: team.sessionRecordingOptIn,
    test_account_filters: team.testAccountFilters,
    test_account_filters_default_checked: team.testAccountFiltersDefaultChecked,
    modifiers: team.modifiers,
    default_modifiers: defaults,
    person_on_events_querying_enabled:
      defaults.personsOnEventsMode === 'person_id_override_properties_on_events' ||
      defaults.personsOnEventsMode === 'person_id_no_override_properties_on_events',
    access_control: false,
    ...settingsOut(teamSettings(team.settings)),
  };
}
