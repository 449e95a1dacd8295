import type { EventsStore } from './store.js';

/** Every events-store table that holds rows of a project (the Null ingest table holds none). */
export const TEAM_TABLES = [
  'events',
  'person',
  'person_distinct_id2',
  'groups',
  'sessions',
  'session_replay_events',
  'session_replay_snapshots',
  'cohort_people',
  'logs',
] as const;

/**
 * Removes a deleted project's analytics rows. ClickHouse deletes them in the background
 * (a mutation per table), so the request that deleted the project does not wait for a rewrite of
 * the table's parts; ids are never reused, so nothing can read them in the meantime.
 */
export async function deleteTeamData(events: EventsStore, teamId: number): Promise<void> {
  if (!Number.isSafeInteger(teamId)) throw new Error('team id must be an integer');
  for (const table of TEAM_TABLES) {
    await events.command(`ALTER TABLE ${events.table(table)} DELETE WHERE team_id = {team:Int64}`, {
      params: { team: teamId },
    });
  }
}
