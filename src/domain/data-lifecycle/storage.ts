import type { EventsStore } from '../../store/events/store.js';
import { TEAM_TABLES } from '../../store/events/team-data.js';

export interface TableUsage {
  table: string;
  rows: number;
  /** This project's share of the table's bytes on disk, by its share of the rows. */
  estimated_bytes: number;
}

export interface ProjectStorage {
  tables: TableUsage[];
  estimated_bytes: number;
  oldest_event: string | null;
}

/**
 * The disk a project uses. The engine's parts mix projects (they are sorted by team, not split by
 * it), so each table's bytes are shared out by rows: exact in total, an estimate per project (a
 * project with wider rows uses more than its share). Counting by `team_id` reads the first column
 * of each table's sort key only.
 */
export async function projectStorage(events: EventsStore, teamId: number): Promise<ProjectStorage> {
  const parts = await events.query<{ table: string; rows: number; bytes: number }>(
    'SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE active AND database = {db:String} GROUP BY table',
    { params: { db: events.database } },
  );
  const byTable = new Map(parts.map((p) => [p.table, { rows: Number(p.rows), bytes: Number(p.bytes) }]));
  const tables: TableUsage[] = [];
  for (const table of TEAM_TABLES) {
    const total = byTable.get(table);
    if (!total || total.rows === 0) {
      tables.push({ table, rows: 0, estimated_bytes: 0 });
      continue;
    }
    const [row] = await events.query<{ n: number }>(
      `SELECT count() AS n FROM ${events.table(table)} WHERE team_id = {team:Int64}`,
      { params: { team: teamId } },
    );
    const rows = Number(row?.n ?? 0);
    tables.push({ table, rows, estimated_bytes: Math.round((total.bytes * rows) / total.rows) });
  }
  const [oldest] = await events.query<{ t: string | null }>(
    `SELECT if(count() = 0, NULL, formatDateTime(min(timestamp), '%Y-%m-%dT%H:%i:%SZ', 'UTC')) AS t FROM ${events.table('events')} WHERE team_id = {team:Int64}`,
    { params: { team: teamId } },
  );
  return {
    tables,
    estimated_bytes: tables.reduce((sum, t) => sum + t.estimated_bytes, 0),
    oldest_event: oldest?.t ?? null,
  };
}
