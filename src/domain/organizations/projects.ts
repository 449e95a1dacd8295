import { permissionDenied, validationError } from '../../errors.js';
import { PERSONS_ON_EVENTS_MODES } from '../../hogql/schema/events.js';
import { deleteTeamData } from '../../store/events/team-data.js';
import type { MetaDb } from '../../store/meta/db.js';
import {
  deleteTeam,
  findTeam,
  insertTeam,
  listOrganizationTeams,
  type TeamPatch,
  type TeamRecord,
  updateTeam,
} from '../../store/meta/teams.js';
import type { OrganizationAccess, ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { newProjectApiToken, newUuid } from '../ids.js';
import { choice, text, timezone } from '../validate.js';
import { checkPathCleaningRules } from '../web-analytics/path-cleaning.js';
import { ADMIN } from './levels.js';
import { settingsPatch } from './team-settings.js';

export interface ProjectInput {
  name?: string;
  timezone?: string;
  week_start_day?: number | null;
  session_recording_opt_in?: boolean;
  anonymize_ips?: boolean;
  test_account_filters?: unknown[];
  test_account_filters_default_checked?: boolean;
  modifiers?: Record<string, unknown> | null;
  is_demo?: boolean;
  access_control?: boolean;
  /** PostHog settings (team-settings.ts) and ignored read-only fields. */
  [setting: string]: unknown;
}

export const insufficientLevel = () => permissionDenied('Your organization access level is insufficient.');

function requireAdmin(access: OrganizationAccess): void {
  if (access.membership.level < ADMIN) throw insufficientLevel();
}

/**
 * The project's default modifiers (PostHog's `team.modifiers`). `personsOnEventsMode` must be one
 * of PostHog's modes; a null key is dropped (the built-in default applies).
 */
function teamModifiers(input: Record<string, unknown> | null): Record<string, unknown> | null {
  if (input === null) return null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input))
    if (value !== null && value !== undefined) out[key] = value;
  const mode = out.personsOnEventsMode;
  if (mode !== undefined) choice(mode as string, PERSONS_ON_EVENTS_MODES as readonly string[], 'modifiers');
  if (out.convertToProjectTimezone !== undefined && typeof out.convertToProjectTimezone !== 'boolean') {
    throw validationError('convertToProjectTimezone must be a boolean.', 'modifiers');
  }
  return Object.keys(out).length ? out : null;
}

/** Settings whose values a query would otherwise refuse later are refused when saved. */
function checkedSettings(input: ProjectInput): ProjectInput {
  checkPathCleaningRules((input as Record<string, unknown>).path_cleaning_filters);
  return input;
}

function patchFrom(input: ProjectInput, updatedAt: string): TeamPatch {
  if (input.access_control === true)
    throw validationError(
      'Burrow has no per-project access control; only false is accepted.',
      'access_control',
    );
  return {
    name: input.name === undefined ? undefined : text(input.name, 'name', 200),
    timezone: input.timezone === undefined ? undefined : timezone(input.timezone),
    weekStartDay:
      input.week_start_day === undefined || input.week_start_day === null
        ? input.week_start_day
        : choice(input.week_start_day, [0, 1], 'week_start_day'),
    sessionRecordingOptIn: input.session_recording_opt_in,
    anonymizeIps: input.anonymize_ips,
    testAccountFilters: input.test_account_filters,
    testAccountFiltersDefaultChecked: input.test_account_filters_default_checked,
    modifiers: input.modifiers === undefined ? undefined : teamModifiers(input.modifiers),
    isDemo: input.is_demo,
    settings: settingsPatch(checkedSettings(input)),
    updatedAt,
  };
}

/** Inserts a project row; callers own the transaction and the permission check. */
export async function insertProject(
  db: MetaDb,
  organizationId: string,
  input: ProjectInput,
  at: string,
): Promise<TeamRecord> {
  const patch = patchFrom(input, at);
  return insertTeam(db, {
    uuid: newUuid(),
    organizationId,
    name: patch.name ?? 'Default project',
    apiToken: newProjectApiToken(),
    timezone: patch.timezone ?? 'UTC',
    weekStartDay: patch.weekStartDay ?? null,
    sessionRecordingOptIn: patch.sessionRecordingOptIn ?? false,
    anonymizeIps: patch.anonymizeIps ?? false,
    isDemo: patch.isDemo ?? false,
    testAccountFilters: patch.testAccountFilters ?? [],
    testAccountFiltersDefaultChecked: patch.testAccountFiltersDefaultChecked ?? false,
    modifiers: patch.modifiers ?? null,
    settings: patch.settings ?? null,
    createdAt: at,
    updatedAt: at,
  });
}

export async function createProject(deps: Deps, access: OrganizationAccess, input: ProjectInput) {
  requireAdmin(access);
  return insertProject(deps.meta, access.organization.id, input, deps.now().toISOString());
}

export function listProjects(
  deps: Deps,
  access: OrganizationAccess,
  page: { limit: number; offset: number },
) {
  return listOrganizationTeams(deps.meta, access.organization.id, page);
}

export async function updateProject(
  deps: Deps,
  access: ProjectAccess,
  input: ProjectInput,
): Promise<TeamRecord> {
  await updateTeam(deps.meta, access.team.id, patchFrom(input, deps.now().toISOString()));
  return (await findTeam(deps.meta, access.team.id)) as TeamRecord;
}

/**
 * Removes the project: its metadata (everything that names the team cascades) at once, then its
 * analytics rows in the background (see deleteTeamData).
 */
export async function deleteProject(deps: Deps, access: ProjectAccess): Promise<void> {
  requireAdmin(access);
  await deleteTeam(deps.meta, access.team.id);
  await deleteTeamData(deps.events, access.team.id);
}
