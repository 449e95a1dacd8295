import { sql } from 'kysely';
import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { likePattern } from './insights.js';

export interface DashboardRecord {
  id: number;
  teamId: number;
  name: string | null;
  description: string;
  pinned: boolean;
  tags: string[];
  filters: Record<string, unknown>;
  variables: Record<string, unknown> | null;
  deleted: boolean;
  createdAt: string;
  createdBy: number | null;
  lastAccessedAt: string | null;
}

export type NewDashboard = Omit<DashboardRecord, 'id'>;
export type DashboardPatch = Partial<
  Pick<DashboardRecord, 'name' | 'description' | 'pinned' | 'tags' | 'filters' | 'variables' | 'deleted'>
>;

/** An insight tile names an insight; a text tile carries its text. */
export interface TileRecord {
  id: number;
  dashboardId: number;
  insightId: number | null;
  textBody: string | null;
  textCreatedBy: number | null;
  textLastModifiedAt: string | null;
  layouts: Record<string, unknown>;
  color: string | null;
  deleted: boolean;
  createdAt: string;
}

export type NewTile = Omit<TileRecord, 'id' | 'deleted'>;
export type TilePatch = Partial<
  Pick<TileRecord, 'layouts' | 'color' | 'deleted' | 'textBody' | 'textLastModifiedAt'>
>;

type DashboardRow = {
  id: number;
  team_id: number;
  name: string | null;
  description: string;
  pinned: boolean | number;
  tags: unknown;
  filters: unknown;
  variables: unknown;
  deleted: boolean | number;
  created_at: Date | string;
  created_by: number | null;
  last_accessed_at: Date | string | null;
};

type TileRow = {
  id: number;
  dashboard_id: number;
  insight_id: number | null;
  text_body: string | null;
  text_created_by: number | null;
  text_last_modified_at: Date | string | null;
  layouts: unknown;
  color: string | null;
  deleted: boolean | number;
  created_at: Date | string;
};

const toDashboard = (row: DashboardRow): DashboardRecord => ({
  id: row.id,
  teamId: row.team_id,
  name: row.name,
  description: row.description,
  pinned: bool(row.pinned),
  tags: json<string[]>(row.tags) ?? [],
  filters: json<Record<string, unknown>>(row.filters) ?? {},
  variables: json<Record<string, unknown> | null>(row.variables) ?? null,
  deleted: bool(row.deleted),
  createdAt: iso(row.created_at),
  createdBy: row.created_by,
  lastAccessedAt: isoOrNull(row.last_accessed_at),
});

const toTile = (row: TileRow): TileRecord => ({
  id: row.id,
  dashboardId: row.dashboard_id,
  insightId: row.insight_id,
  textBody: row.text_body,
  textCreatedBy: row.text_created_by,
  textLastModifiedAt: isoOrNull(row.text_last_modified_at),
  layouts: json<Record<string, unknown>>(row.layouts) ?? {},
  color: row.color,
  deleted: bool(row.deleted),
  createdAt: iso(row.created_at),
});

export async function insertDashboard(db: MetaDb, d: NewDashboard): Promise<DashboardRecord> {
  const row = await db
    .insertInto('dashboards')
    .values({
      team_id: d.teamId,
      name: d.name,
      description: d.description,
      pinned: d.pinned,
      tags: toJson(d.tags),
      filters: toJson(d.filters),
      variables: d.variables === null ? null : toJson(d.variables),
      deleted: d.deleted,
      created_at: d.createdAt,
      created_by: d.createdBy,
      last_accessed_at: d.lastAccessedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toDashboard(row);
}

export async function updateDashboard(
  db: MetaDb,
  teamId: number,
  id: number,
  patch: DashboardPatch,
): Promise<DashboardRecord | undefined> {
  const set: Record<string, unknown> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.pinned !== undefined) set.pinned = patch.pinned;
  if (patch.tags !== undefined) set.tags = toJson(patch.tags);
  if (patch.filters !== undefined) set.filters = toJson(patch.filters);
  if (patch.variables !== undefined)
    set.variables = patch.variables === null ? null : toJson(patch.variables);
  if (patch.deleted !== undefined) set.deleted = patch.deleted;
  if (Object.keys(set).length === 0) return findDashboard(db, teamId, id);
  const row = await db
    .updateTable('dashboards')
    .set(set)
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toDashboard(row);
}

export async function findDashboard(
  db: MetaDb,
  teamId: number,
  id: number,
): Promise<DashboardRecord | undefined> {
  const row = await db
    .selectFrom('dashboards')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toDashboard(row);
}

/** Live dashboards of the team among `ids` (the ones an insight may be put on). */
export async function findDashboards(db: MetaDb, teamId: number, ids: number[]): Promise<DashboardRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('dashboards')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', 'in', ids)
    .execute();
  return rows.map(toDashboard);
}

export async function listDashboards(
  db: MetaDb,
  teamId: number,
  filter: { search?: string; pinned?: boolean },
  page: { limit: number; offset: number },
): Promise<{ count: number; results: DashboardRecord[] }> {
  let base = db.selectFrom('dashboards').where('team_id', '=', teamId).where('deleted', '=', false);
  if (filter.pinned !== undefined) base = base.where('pinned', '=', filter.pinned);
  if (filter.search) {
    const p = likePattern(filter.search);
    base = base.where((eb) =>
      eb.or([
        sql<boolean>`lower(coalesce(name, '')) like ${p} escape '\\'`,
        sql<boolean>`lower(description) like ${p} escape '\\'`,
      ]),
    );
  }
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    // PostHog orders pinned first, then by name.
    base
      .selectAll()
      .orderBy('pinned', 'desc')
      .orderBy('name')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(counted.n), results: rows.map(toDashboard) };
}

export async function insertTile(db: MetaDb, t: NewTile): Promise<TileRecord> {
  const row = await db
    .insertInto('dashboard_tiles')
    .values({
      dashboard_id: t.dashboardId,
      insight_id: t.insightId,
      text_body: t.textBody,
      text_created_by: t.textCreatedBy,
      text_last_modified_at: t.textLastModifiedAt,
      layouts: toJson(t.layouts),
      color: t.color,
      deleted: false,
      created_at: t.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTile(row);
}

export async function updateTile(
  db: MetaDb,
  dashboardId: number,
  id: number,
  patch: TilePatch,
): Promise<TileRecord | undefined> {
  const set: Record<string, unknown> = {};
  if (patch.layouts !== undefined) set.layouts = toJson(patch.layouts);
  if (patch.color !== undefined) set.color = patch.color;
  if (patch.deleted !== undefined) set.deleted = patch.deleted;
  if (patch.textBody !== undefined) set.text_body = patch.textBody;
  if (patch.textLastModifiedAt !== undefined) set.text_last_modified_at = patch.textLastModifiedAt;
  if (Object.keys(set).length === 0) return undefined;
  const row = await db
    .updateTable('dashboard_tiles')
    .set(set)
    .where('dashboard_id', '=', dashboardId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toTile(row);
}

/** Live tiles of the dashboards, in creation order. */
export async function tilesOf(db: MetaDb, dashboardIds: number[]): Promise<TileRecord[]> {
  if (dashboardIds.length === 0) return [];
  const rows = await db
    .selectFrom('dashboard_tiles')
    .selectAll()
    .where('dashboard_id', 'in', dashboardIds)
    .where('deleted', '=', false)
    .orderBy('id')
    .execute();
  return rows.map(toTile);
}

/** Live tiles showing these insights on live dashboards (an insight's `dashboards`). */
export async function tilesOfInsights(db: MetaDb, insightIds: number[]): Promise<TileRecord[]> {
  if (insightIds.length === 0) return [];
  const rows = await db
    .selectFrom('dashboard_tiles')
    .innerJoin('dashboards', 'dashboards.id', 'dashboard_tiles.dashboard_id')
    .selectAll('dashboard_tiles')
    .where('dashboard_tiles.insight_id', 'in', insightIds)
    .where('dashboard_tiles.deleted', '=', false)
    .where('dashboards.deleted', '=', false)
    .orderBy('dashboard_tiles.id')
    .execute();
  return rows.map(toTile);
}

/** Every tile (deleted ones too) of one insight on one dashboard: re-adding restores the old tile. */
export async function tileOfInsightOn(
  db: MetaDb,
  dashboardId: number,
  insightId: number,
): Promise<TileRecord | undefined> {
  const row = await db
    .selectFrom('dashboard_tiles')
    .selectAll()
    .where('dashboard_id', '=', dashboardId)
    .where('insight_id', '=', insightId)
    .orderBy('id')
    .executeTakeFirst();
  return row && toTile(row);
}
