import { bool, iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { countDestinationWrite } from './local-writes.js';
import { prepared } from './prepared.js';

export interface TeamRecord {
  id: number;
  uuid: string;
  organizationId: string;
  name: string;
  apiToken: string;
  timezone: string;
  weekStartDay: number | null;
  sessionRecordingOptIn: boolean;
  anonymizeIps: boolean;
  isDemo: boolean;
  testAccountFilters: unknown[];
  testAccountFiltersDefaultChecked: boolean;
  /** Default HogQL modifiers (PostHog's `team.modifiers`); null: none. */
  modifiers: Record<string, unknown> | null;
  /** PostHog settings stored as written (domain/organizations/team-settings.ts); null: none. */
  settings: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

export type NewTeam = Omit<TeamRecord, 'id'>;
export type TeamPatch = Partial<
  Pick<
    TeamRecord,
    | 'name'
    | 'timezone'
    | 'weekStartDay'
    | 'sessionRecordingOptIn'
    | 'anonymizeIps'
    | 'testAccountFilters'
    | 'testAccountFiltersDefaultChecked'
    | 'modifiers'
    | 'isDemo'
  >
> & {
  updatedAt: string;
  /** Settings to merge into the stored ones, key by key. */
  settings?: Record<string, unknown>;
};

type Row = {
  id: number;
  uuid: string;
  organization_id: string;
  name: string;
  api_token: string;
  timezone: string;
  week_start_day: number | null;
  session_recording_opt_in: boolean | number;
  anonymize_ips: boolean | number;
  is_demo: boolean | number;
  test_account_filters: unknown;
  test_account_filters_default_checked: boolean | number;
  modifiers: unknown;
  settings: unknown;
  created_at: Date | string;
  updated_at: Date | string;
};

function toRecord(row: Row): TeamRecord {
  return {
    id: row.id,
    uuid: row.uuid,
    organizationId: row.organization_id,
    name: row.name,
    apiToken: row.api_token,
    timezone: row.timezone,
    weekStartDay: row.week_start_day,
    sessionRecordingOptIn: bool(row.session_recording_opt_in),
    anonymizeIps: bool(row.anonymize_ips),
    isDemo: bool(row.is_demo),
    testAccountFilters: json<unknown[]>(row.test_account_filters) ?? [],
    testAccountFiltersDefaultChecked: bool(row.test_account_filters_default_checked),
    modifiers: row.modifiers === null || row.modifiers === undefined ? null : json(row.modifiers),
    settings: row.settings === null || row.settings === undefined ? null : json(row.settings),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

const byId = prepared((db: MetaDb, id: number) => db.selectFrom('teams').selectAll().where('id', '=', id), 1);

export async function findTeam(db: MetaDb, id: number): Promise<TeamRecord | undefined> {
  const [row] = await byId(db, id);
  return row && toRecord(row);
}

export async function findTeamByToken(db: MetaDb, apiToken: string): Promise<TeamRecord | undefined> {
  const row = await db.selectFrom('teams').selectAll().where('api_token', '=', apiToken).executeTakeFirst();
  return row && toRecord(row);
}

export async function insertTeam(db: MetaDb, team: NewTeam): Promise<TeamRecord> {
  // Counted once written (local-writes.ts): a reader that saw the count then reads anew.
  try {
    const row = await db
      .insertInto('teams')
      .values({
        uuid: team.uuid,
        organization_id: team.organizationId,
        name: team.name,
        api_token: team.apiToken,
        timezone: team.timezone,
        week_start_day: team.weekStartDay,
        session_recording_opt_in: team.sessionRecordingOptIn,
        anonymize_ips: team.anonymizeIps,
        is_demo: team.isDemo,
        test_account_filters: toJson(team.testAccountFilters),
        test_account_filters_default_checked: team.testAccountFiltersDefaultChecked,
        modifiers: team.modifiers === null ? null : toJson(team.modifiers),
        settings: team.settings === null ? null : toJson(team.settings),
        created_at: team.createdAt,
        updated_at: team.updatedAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  } finally {
    countDestinationWrite();
  }
}

export async function updateTeam(db: MetaDb, id: number, patch: TeamPatch): Promise<void> {
  // Counted once written (local-writes.ts): a reader that saw the count then reads anew.
  try {
    // Settings merge into what is stored; read and written in one transaction so that two PATCHes
    // of different settings both land.
    if (patch.settings) {
      const settings = patch.settings;
      await db.transaction().execute(async (tx) => {
        const row = await tx.selectFrom('teams').select('settings').where('id', '=', id).executeTakeFirst();
        const stored = row?.settings ? (json(row.settings) as Record<string, unknown>) : {};
        await writeTeam(tx, id, { ...patch, settings: { ...stored, ...settings } });
      });
      return;
    }
    await writeTeam(db, id, patch);
  } finally {
    countDestinationWrite();
  }
}

async function writeTeam(db: MetaDb, id: number, patch: TeamPatch): Promise<void> {
  await db
    .updateTable('teams')
    .set({
      name: patch.name,
      timezone: patch.timezone,
      week_start_day: patch.weekStartDay,
      session_recording_opt_in: patch.sessionRecordingOptIn,
      anonymize_ips: patch.anonymizeIps,
      test_account_filters:
        patch.testAccountFilters === undefined ? undefined : toJson(patch.testAccountFilters),
      test_account_filters_default_checked: patch.testAccountFiltersDefaultChecked,
      modifiers:
        patch.modifiers === undefined ? undefined : patch.modifiers === null ? null : toJson(patch.modifiers),
      is_demo: patch.isDemo,
      settings: patch.settings === undefined ? undefined : toJson(patch.settings),
      updated_at: patch.updatedAt,
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteTeam(db: MetaDb, id: number): Promise<void> {
  // Counted once written (local-writes.ts): a reader that saw the count then reads anew.
  try {
    await db.deleteFrom('teams').where('id', '=', id).execute();
  } finally {
    countDestinationWrite();
  }
}

export async function listOrganizationTeams(
  db: MetaDb,
  organizationId: string,
  page?: { limit: number; offset: number },
): Promise<{ count: number; results: TeamRecord[] }> {
  const base = db.selectFrom('teams').where('organization_id', '=', organizationId);
  let rows = base.selectAll().orderBy('id');
  if (page) rows = rows.limit(page.limit).offset(page.offset);
  const [countRow, results] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    rows.execute(),
  ]);
  return { count: Number(countRow.n), results: results.map(toRecord) };
}

export async function teamIdsExist(db: MetaDb, ids: number[]): Promise<TeamRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('teams').selectAll().where('id', 'in', ids).execute();
  return rows.map(toRecord);
}

/** Every project that has stored settings (the retention job's candidates), by id. */
export async function teamsWithSettings(db: MetaDb): Promise<TeamRecord[]> {
  const rows = await db
    .selectFrom('teams')
    .selectAll()
    .where('settings', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map(toRecord);
}
