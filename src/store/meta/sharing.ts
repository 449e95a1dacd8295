import { bool, iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface SharingRecord {
  id: number;
  teamId: number;
  insightId: number | null;
  dashboardId: number | null;
  enabled: boolean;
  accessToken: string;
  settings: Record<string, unknown> | null;
  createdAt: string;
}

type Row = {
  id: number;
  team_id: number;
  insight_id: number | null;
  dashboard_id: number | null;
  enabled: boolean | number;
  access_token: string;
  settings: unknown;
  created_at: Date | string;
};

const toSharing = (row: Row): SharingRecord => ({
  id: row.id,
  teamId: row.team_id,
  insightId: row.insight_id,
  dashboardId: row.dashboard_id,
  enabled: bool(row.enabled),
  accessToken: row.access_token,
  settings: json<Record<string, unknown> | null>(row.settings) ?? null,
  createdAt: iso(row.created_at),
});

export type SharingTarget = { insightId: number } | { dashboardId: number };

export async function findSharing(
  db: MetaDb,
  teamId: number,
  target: SharingTarget,
): Promise<SharingRecord | undefined> {
  let q = db.selectFrom('sharing_configurations').selectAll().where('team_id', '=', teamId);
  q =
    'insightId' in target
      ? q.where('insight_id', '=', target.insightId).where('dashboard_id', 'is', null)
      : q.where('dashboard_id', '=', target.dashboardId).where('insight_id', 'is', null);
  const row = await q.orderBy('id').executeTakeFirst();
  return row && toSharing(row);
}

export async function insertSharing(db: MetaDb, s: Omit<SharingRecord, 'id'>): Promise<SharingRecord> {
  const row = await db
    .insertInto('sharing_configurations')
    .values({
      team_id: s.teamId,
      insight_id: s.insightId,
      dashboard_id: s.dashboardId,
      enabled: s.enabled,
      access_token: s.accessToken,
      settings: s.settings === null ? null : toJson(s.settings),
      created_at: s.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSharing(row);
}

export async function updateSharing(
  db: MetaDb,
  id: number,
  patch: Partial<Pick<SharingRecord, 'enabled' | 'accessToken' | 'settings'>>,
): Promise<SharingRecord> {
  const set: Record<string, unknown> = {};
  if (patch.enabled !== undefined) set.enabled = patch.enabled;
  if (patch.accessToken !== undefined) set.access_token = patch.accessToken;
  if (patch.settings !== undefined) set.settings = patch.settings === null ? null : toJson(patch.settings);
  const row = await db
    .updateTable('sharing_configurations')
    .set(set)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSharing(row);
}

export async function sharingByToken(db: MetaDb, token: string): Promise<SharingRecord | undefined> {
  const row = await db
    .selectFrom('sharing_configurations')
    .selectAll()
    .where('access_token', '=', token)
    .executeTakeFirst();
  return row && toSharing(row);
}
