import { sql } from 'kysely';
import { bool, iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface InsightRecord {
  id: number;
  teamId: number;
  shortId: string;
  name: string | null;
  derivedName: string | null;
  description: string;
  query: Record<string, unknown> | null;
  tags: string[];
  favorited: boolean;
  saved: boolean;
  deleted: boolean;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
  lastModifiedAt: string;
  lastModifiedBy: number | null;
}

export type NewInsight = Omit<InsightRecord, 'id'>;
export type InsightPatch = Partial<
  Pick<
    InsightRecord,
    | 'name'
    | 'derivedName'
    | 'description'
    | 'query'
    | 'tags'
    | 'favorited'
    | 'saved'
    | 'deleted'
    | 'updatedAt'
    | 'lastModifiedAt'
    | 'lastModifiedBy'
  >
>;

type Row = {
  id: number;
  team_id: number;
  short_id: string;
  name: string | null;
  derived_name: string | null;
  description: string;
  query: unknown;
  tags: unknown;
  favorited: boolean | number;
  saved: boolean | number;
  deleted: boolean | number;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
  last_modified_at: Date | string;
  last_modified_by: number | null;
};

function toInsight(row: Row): InsightRecord {
  return {
    id: row.id,
    teamId: row.team_id,
    shortId: row.short_id,
    name: row.name,
    derivedName: row.derived_name,
    description: row.description,
    query: json<Record<string, unknown> | null>(row.query) ?? null,
    tags: json<string[]>(row.tags) ?? [],
    favorited: bool(row.favorited),
    saved: bool(row.saved),
    deleted: bool(row.deleted),
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
    updatedAt: iso(row.updated_at),
    lastModifiedAt: iso(row.last_modified_at),
    lastModifiedBy: row.last_modified_by,
  };
}

export async function insertInsight(db: MetaDb, i: NewInsight): Promise<InsightRecord> {
  const row = await db
    .insertInto('insights')
    .values({
      team_id: i.teamId,
      short_id: i.shortId,
      name: i.name,
      derived_name: i.derivedName,
      description: i.description,
      query: i.query === null ? null : toJson(i.query),
      tags: toJson(i.tags),
      favorited: i.favorited,
      saved: i.saved,
      deleted: i.deleted,
      created_at: i.createdAt,
      created_by: i.createdBy,
      updated_at: i.updatedAt,
      last_modified_at: i.lastModifiedAt,
      last_modified_by: i.lastModifiedBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toInsight(row);
}

export async function updateInsight(
  db: MetaDb,
  teamId: number,
  id: number,
  patch: InsightPatch,
): Promise<InsightRecord | undefined> {
  const set: Record<string, unknown> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.derivedName !== undefined) set.derived_name = patch.derivedName;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.query !== undefined) set.query = patch.query === null ? null : toJson(patch.query);
  if (patch.tags !== undefined) set.tags = toJson(patch.tags);
  if (patch.favorited !== undefined) set.favorited = patch.favorited;
  if (patch.saved !== undefined) set.saved = patch.saved;
  if (patch.deleted !== undefined) set.deleted = patch.deleted;
  if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
  if (patch.lastModifiedAt !== undefined) set.last_modified_at = patch.lastModifiedAt;
  if (patch.lastModifiedBy !== undefined) set.last_modified_by = patch.lastModifiedBy;
  const row = await db
    .updateTable('insights')
    .set(set)
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toInsight(row);
}

/** Deleted insights are found too: PATCH `deleted: false` restores one. */
export async function findInsight(
  db: MetaDb,
  teamId: number,
  id: number,
): Promise<InsightRecord | undefined> {
  const row = await db
    .selectFrom('insights')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toInsight(row);
}

export async function findInsights(db: MetaDb, teamId: number, ids: number[]): Promise<InsightRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('insights')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', 'in', ids)
    .execute();
  return rows.map(toInsight);
}

export interface InsightListFilter {
  shortId?: string;
  search?: string;
  saved?: boolean;
  favorited?: boolean;
  createdBy?: number;
  /** Only insights on this dashboard (a live tile). */
  dashboardId?: number;
}

/** `%`, `_` and the escape character itself are literal in a search. */
export const likePattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Live insights, most recently modified first (PostHog's default order). */
export async function listInsights(
  db: MetaDb,
  teamId: number,
  filter: InsightListFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: InsightRecord[] }> {
  let base = db.selectFrom('insights').where('team_id', '=', teamId).where('deleted', '=', false);
  if (filter.shortId !== undefined) base = base.where('short_id', '=', filter.shortId);
  if (filter.saved !== undefined) base = base.where('saved', '=', filter.saved);
  if (filter.favorited !== undefined) base = base.where('favorited', '=', filter.favorited);
  if (filter.createdBy !== undefined) base = base.where('created_by', '=', filter.createdBy);
  if (filter.search) {
    const p = likePattern(filter.search);
    base = base.where((eb) =>
      eb.or([
        sql<boolean>`lower(coalesce(name, '')) like ${p} escape '\\'`,
        sql<boolean>`lower(coalesce(derived_name, '')) like ${p} escape '\\'`,
        sql<boolean>`lower(description) like ${p} escape '\\'`,
      ]),
    );
  }
  if (filter.dashboardId !== undefined) {
    const dashboardId = filter.dashboardId;
    base = base.where('id', 'in', (eb) =>
      eb
        .selectFrom('dashboard_tiles')
        .select('insight_id')
        .where('dashboard_id', '=', dashboardId)
        .where('deleted', '=', false)
        .where('insight_id', 'is not', null)
        .$narrowType<{ insight_id: number }>(),
    );
  }
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('last_modified_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(counted.n), results: rows.map(toInsight) };
}
