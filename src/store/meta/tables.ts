import type { ColumnType, Generated } from 'kysely';
import type {
  BatchExportBackfillsTable,
  BatchExportRunsTable,
  BatchExportsTable,
} from './batch-export-tables.js';
import type {
  FeatureFlagHashKeyOverridesTable,
  FeatureFlagsTable,
  ProjectSecretApiKeysTable,
} from './flag-tables.js';
import type { SavedTables } from './saved-tables.js';
import type { EarlyAccessFeaturesTable, SurveysTable } from './survey-tables.js';

/**
 * Row shapes as the database driver sees them. Columns whose JS type differs between SQLite and
 * PostgreSQL (booleans, JSON, timestamps) are typed loosely here and normalised by `codec.ts`.
 */
// Every boolean column has a default, so inserts may omit it.
type Bool = ColumnType<boolean | number, boolean | undefined, boolean>;
type Json = ColumnType<unknown, string, string>;
type Timestamp = ColumnType<Date | string, string, string>;
type NullableTimestamp = ColumnType<Date | string | null, string | null, string | null>;

export interface OrganizationsTable {
  id: string;
  name: string;
  slug: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  members_can_use_personal_api_keys: Bool;
  is_member_join_email_enabled: Bool;
}

export interface TeamsTable {
  id: Generated<number>;
  uuid: string;
  organization_id: string;
  name: string;
  api_token: string;
  timezone: string;
  week_start_day: number | null;
  session_recording_opt_in: Bool;
  anonymize_ips: Bool;
  is_demo: Bool;
  test_account_filters: Json;
  test_account_filters_default_checked: Bool;
  modifiers: Json | null;
  settings: Json | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: Generated<number>;
  uuid: string;
  distinct_id: string;
  email: string;
  first_name: string;
  last_name: string;
  password_hash: string | null;
  is_active: Bool;
  is_email_verified: Bool;
  current_organization_id: string | null;
  current_team_id: number | null;
  created_at: Timestamp;
  last_login: NullableTimestamp;
}

export interface MembershipsTable {
  id: string;
  organization_id: string;
  user_id: number;
  level: number;
  joined_at: Timestamp;
  updated_at: Timestamp;
}

export interface PersonalApiKeysTable {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  secure_value: string;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  last_rolled_at: NullableTimestamp;
  scopes: Json;
  scoped_teams: Json;
  scoped_organizations: Json;
}

export interface PersonsTable {
  id: string;
  team_id: number;
  properties: Json;
  is_identified: Bool;
  version: number;
  created_at: Timestamp;
}

export interface PersonDistinctIdsTable {
  team_id: number;
  distinct_id: string;
  person_id: string;
  version: number;
}

export interface GroupTypeMappingsTable {
  team_id: number;
  group_type: string;
  group_type_index: number;
}

export interface GroupsTable {
  team_id: number;
  group_type_index: number;
  group_key: string;
  properties: Json;
  version: number;
  created_at: Timestamp;
}

export interface OrganizationDomainsTable {
  id: string;
  organization_id: string;
  domain: string;
  verification_challenge: string;
  verified_at: NullableTimestamp;
  last_verification_retry: NullableTimestamp;
  jit_provisioning_enabled: Bool;
  sso_enforcement: string;
  saml_entity_id: string | null;
  saml_acs_url: string | null;
  saml_x509_cert: string | null;
  created_at: Timestamp;
}

export interface OrganizationInvitesTable {
  id: string;
  organization_id: string;
  target_email: string;
  first_name: string;
  created_by_id: number | null;
  emailing_attempt_made: Bool;
  level: number;
  message: string | null;
  private_project_access: Json;
  accepted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** SHA-256 (hex) of the secret the invite email carries; null for invites made before it existed. */
  token_hash: string | null;
}

export interface LoginSessionsTable {
  id: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface MemberProjectAccessTable {
  membership_id: string;
  team_id: number;
  level: string;
}

export interface SessionRecordingPlaylistsTable {
  id: Generated<number>;
  short_id: string;
  team_id: number;
  name: string | null;
  derived_name: string | null;
  description: string;
  pinned: Bool;
  deleted: Bool;
  filters: Json;
  type: string | null;
  created_at: Timestamp;
  created_by: number | null;
  last_modified_at: Timestamp;
  last_modified_by: number | null;
  last_counted_at: NullableTimestamp;
  counts: ColumnType<unknown, string | null, string | null>;
  count_errors: ColumnType<number, number | undefined, number>;
}

export interface SessionRecordingPlaylistItemsTable {
  playlist_id: number;
  session_id: string;
  created_at: Timestamp;
}

export interface SessionRecordingPlaylistMatchesTable {
  playlist_id: number;
  session_id: string;
}

export interface SessionRecordingsTable {
  team_id: number;
  session_id: string;
  deleted: Bool;
  created_at: Timestamp;
}

export interface SessionRecordingViewsTable {
  team_id: number;
  user_id: number;
  session_id: string;
  created_at: Timestamp;
}

export interface ActionsTable {
  id: Generated<number>;
  team_id: number;
  name: string | null;
  description: string;
  tags: Json;
  post_to_slack: Bool;
  slack_message_format: string;
  steps: Json;
  deleted: Bool;
  created_at: Timestamp;
  created_by: number | null;
  updated_at: Timestamp;
  last_calculated_at: Timestamp;
  pinned_at: NullableTimestamp;
}

export interface MetaTables extends SavedTables {
  surveys: SurveysTable;
  early_access_features: EarlyAccessFeaturesTable;
  actions: ActionsTable;
  feature_flags: FeatureFlagsTable;
  feature_flag_hash_key_overrides: FeatureFlagHashKeyOverridesTable;
  project_secret_api_keys: ProjectSecretApiKeysTable;
  batch_exports: BatchExportsTable;
  batch_export_backfills: BatchExportBackfillsTable;
  batch_export_runs: BatchExportRunsTable;
  persons: PersonsTable;
  person_distinct_ids: PersonDistinctIdsTable;
  group_type_mappings: GroupTypeMappingsTable;
  groups: GroupsTable;
  organizations: OrganizationsTable;
  teams: TeamsTable;
  users: UsersTable;
  organization_memberships: MembershipsTable;
  personal_api_keys: PersonalApiKeysTable;
  session_recording_playlists: SessionRecordingPlaylistsTable;
  session_recording_playlist_items: SessionRecordingPlaylistItemsTable;
  session_recording_playlist_matches: SessionRecordingPlaylistMatchesTable;
  session_recordings: SessionRecordingsTable;
  session_recording_views: SessionRecordingViewsTable;
  organization_domains: OrganizationDomainsTable;
  organization_invites: OrganizationInvitesTable;
  login_sessions: LoginSessionsTable;
  member_project_access: MemberProjectAccessTable;
}
