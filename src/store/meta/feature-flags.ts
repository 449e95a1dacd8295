import { sql } from 'kysely';
import { bool, iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { prepared } from './prepared.js';

/** A flag as stored; `filters` is PostHog's filters document, validated by the domain before writing. */
export interface FeatureFlagRecord {
  id: number;
  teamId: number;
  key: string;
  name: string;
  filters: Record<string, unknown>;
  active: boolean;
  deleted: boolean;
  ensureExperienceContinuity: boolean;
  evaluationRuntime: string;
  tags: string[];
  version: number;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
  lastModifiedBy: number | null;
}

export type NewFeatureFlag = Omit<FeatureFlagRecord, 'id'>;
export type FeatureFlagPatch = Partial<
  Pick<
    FeatureFlagRecord,
    | 'key'
    | 'name'
    | 'filters'
    | 'active'
    | 'deleted'
    | 'ensureExperienceContinuity'
    | 'evaluationRuntime'
    | 'tags'
    | 'lastModifiedBy'
  >
> & { updatedAt: string };

type Row = {
  id: number;
  team_id: number;
  key: string;
  name: string;
  filters: unknown;
  active: boolean | number;
  deleted: boolean | number;
  ensure_experience_continuity: boolean | number;
  evaluation_runtime: string;
  tags: unknown;
  version: number;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
  last_modified_by: number | null;
};

const toRecord = (row: Row): FeatureFlagRecord => ({
  id: row.id,
  teamId: row.team_id,
  key: row.key,
  name: row.name,
  filters: json<Record<string, unknown>>(row.filters) ?? {},
  active: bool(row.active),
  deleted: bool(row.deleted),
  ensureExperienceContinuity: bool(row.ensure_experience_continuity),
  evaluationRuntime: row.evaluation_runtime,
  tags: json<string[]>(row.tags) ?? [],
  version: row.version,
  createdAt: iso(row.created_at),
  createdBy: row.created_by,
  updatedAt: iso(row.updated_at),
  lastModifiedBy: row.last_modified_by,
});

export async function insertFeatureFlag(db: MetaDb, f: NewFeatureFlag): Promise<FeatureFlagRecord> {
  const row = await db
    .insertInto('feature_flags')
    .values({
      team_id: f.teamId,
      key: f.key,
      name: f.name,
      filters: toJson(f.filters),
      active: f.active,
      deleted: f.deleted,
      ensure_experience_continuity: f.ensureExperienceContinuity,
      evaluation_runtime: f.evaluationRuntime,
      tags: toJson(f.tags),
      version: f.version,
      created_at: f.createdAt,
      created_by: f.createdBy,
      updated_at: f.updatedAt,
      last_modified_by: f.lastModifiedBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRecord(row);
}

/** One flag of the project by id (deleted ones too). */
export async function findFeatureFlag(
  db: MetaDb,
  teamId: number,
  id: number,
): Promise<FeatureFlagRecord | undefined> {
  const row = await db
    .selectFrom('feature_flags')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRecord(row);
}

/** The live flag with this key, if any. */
export async function findFeatureFlagByKey(
  db: MetaDb,
  teamId: number,
  key: string,
): Promise<FeatureFlagRecord | undefined> {
  const row = await db
    .selectFrom('feature_flags')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('key', '=', key)
    .where('deleted', '=', false)
    .executeTakeFirst();
  return row && toRecord(row);
}

export interface FlagListFilter {
  search?: string;
  active?: boolean;
  limit: number;
  offset: number;
}

/** Live flags, newest first; `search` matches key or name, case-insensitively. */
export async function listFeatureFlags(
  db: MetaDb,
  teamId: number,
  filter: FlagListFilter,
): Promise<{ count: number; results: FeatureFlagRecord[] }> {
  let base = db.selectFrom('feature_flags').where('team_id', '=', teamId).where('deleted', '=', false);
  if (filter.active !== undefined) base = base.where('active', '=', filter.active);
  if (filter.search) {
    const pattern = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) =>
      eb.or([
        eb(sql`lower(key)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  const [countRow, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
  ]);
  return { count: Number(countRow.n), results: rows.map(toRecord) };
}

const liveFlags = prepared(
  (db: MetaDb, teamId: number) =>
    db
      .selectFrom('feature_flags')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('deleted', '=', false)
      .orderBy('id'),
  1,
);

/** Every live flag of a project (active or not), oldest first: what evaluation and SDKs read. */
export async function liveFeatureFlags(db: MetaDb, teamId: number): Promise<FeatureFlagRecord[]> {
  return (await liveFlags(db, teamId)).map(toRecord);
}

/** Applies `patch` and bumps the version, if the flag still has `expectedVersion` (when given). */
export async function updateFeatureFlag(
  db: MetaDb,
  teamId: number,
  id: number,
  patch: FeatureFlagPatch,
): Promise<FeatureFlagRecord | undefined> {
  const set: Record<string, unknown> = { updated_at: patch.updatedAt };
  if (patch.key !== undefined) set.key = patch.key;
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.filters !== undefined) set.filters = toJson(patch.filters);
  if (patch.active !== undefined) set.active = patch.active;
  if (patch.deleted !== undefined) set.deleted = patch.deleted;
  if (patch.ensureExperienceContinuity !== undefined)
    set.ensure_experience_continuity = patch.ensureExperienceContinuity;
  if (patch.evaluationRuntime !== undefined) set.evaluation_runtime = patch.evaluationRuntime;
  if (patch.tags !== undefined) set.tags = toJson(patch.tags);
  if (patch.lastModifiedBy !== undefined) set.last_modified_by = patch.lastModifiedBy;
  const row = await db
    .updateTable('feature_flags')
    .set({ ...set, version: sql`version + 1` } as never)
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toRecord(row);
}

/** These flags of the project, deleted ones too (what surveys and early access features point at). */
export async function featureFlagsByIds(
  db: MetaDb,
  teamId: number,
  ids: number[],
): Promise<FeatureFlagRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('feature_flags')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', 'in', ids)
    .execute();
  return rows.map(toRecord);
}
