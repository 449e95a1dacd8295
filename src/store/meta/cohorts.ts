import { sql } from 'kysely';
import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import './data-tables.js';

export interface CohortRecord {
  id: number;
  teamId: number;
  name: string | null;
  description: string;
  filters: unknown;
  groups: unknown[];
  isStatic: boolean;
  deleted: boolean;
  count: number | null;
  version: number | null;
  pendingVersion: number | null;
  isCalculating: boolean;
  lastCalculation: string | null;
  errorsCalculating: number;
  lastError: string | null;
  lastErrorAt: string | null;
  createdAt: string;
  createdBy: number | null;
}

type Row = {
  id: number;
  team_id: number;
  name: string | null;
  description: string;
  filters: unknown;
  groups: unknown;
  is_static: boolean | number;
  deleted: boolean | number;
  count: number | null;
  version: number | null;
  pending_version: number | null;
  is_calculating: boolean | number;
  last_calculation: Date | string | null;
  errors_calculating: number;
  last_error: string | null;
  last_error_at: Date | string | null;
  created_at: Date | string;
  created_by: number | null;
};

const toRecord = (r: Row): CohortRecord => ({
  id: r.id,
  teamId: r.team_id,
  name: r.name,
  description: r.description,
  filters: json<unknown>(r.filters) ?? null,
  groups: json<unknown[]>(r.groups) ?? [],
  isStatic: bool(r.is_static),
  deleted: bool(r.deleted),
  count: r.count,
  version: r.version,
  pendingVersion: r.pending_version,
  isCalculating: bool(r.is_calculating),
  lastCalculation: isoOrNull(r.last_calculation),
  errorsCalculating: r.errors_calculating,
  lastError: r.last_error,
  lastErrorAt: isoOrNull(r.last_error_at),
  createdAt: iso(r.created_at),
  createdBy: r.created_by,
});

/** Id, name and finished version of every cohort of a team that is not deleted (id order). */
export async function cohortRefs(
  db: MetaDb,
  teamId: number,
): Promise<Array<{ id: number; name: string | null; version: number | null }>> {
  return db
    .selectFrom('cohorts')
    .select(['id', 'name', 'version'])
    .where('team_id', '=', teamId)
    .where('deleted', '=', false)
    .orderBy('id')
    .execute();
}

export async function insertCohort(
  db: MetaDb,
  c: Pick<
    CohortRecord,
    'teamId' | 'name' | 'description' | 'filters' | 'groups' | 'isStatic' | 'createdBy'
  > & {
    createdAt: string;
  },
): Promise<number> {
  const row = await db
    .insertInto('cohorts')
    .values({
      team_id: c.teamId,
      name: c.name,
      description: c.description,
      filters: c.filters === null || c.filters === undefined ? null : toJson(c.filters),
      groups: toJson(c.groups),
      is_static: c.isStatic,
      created_at: c.createdAt,
      created_by: c.createdBy,
      // A static cohort's members are one version from the start.
      version: c.isStatic ? 0 : null,
      count: c.isStatic ? 0 : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findCohort(db: MetaDb, teamId: number, id: number): Promise<CohortRecord | undefined> {
  const row = await db
    .selectFrom('cohorts')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRecord(row);
}

export async function listCohorts(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number },
  search?: string,
): Promise<{ count: number; results: CohortRecord[] }> {
  let q = db.selectFrom('cohorts').where('team_id', '=', teamId).where('deleted', '=', false);
  if (search)
    q = q.where(
      sql<boolean>`lower(name) like lower(${`%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}) escape ${'\\'}`,
    );
  const [{ n }] = (await q.select((eb) => eb.fn.countAll<number>().as('n')).execute()) as [{ n: number }];
  const rows = await q.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), results: rows.map(toRecord) };
}

export async function updateCohort(
  db: MetaDb,
  id: number,
  set: Partial<Pick<CohortRecord, 'name' | 'description' | 'filters' | 'groups' | 'deleted'>>,
): Promise<void> {
  await db
    .updateTable('cohorts')
    .set({
      ...(set.name !== undefined ? { name: set.name } : {}),
      ...(set.description !== undefined ? { description: set.description } : {}),
      ...(set.filters !== undefined ? { filters: set.filters === null ? null : toJson(set.filters) } : {}),
      ...(set.groups !== undefined ? { groups: toJson(set.groups) } : {}),
      ...(set.deleted !== undefined ? { deleted: set.deleted } : {}),
    })
    .where('id', '=', id)
    .execute();
}

/** Claims the next calculation; undefined when one is already running (another node or here). */
export async function startCalculation(db: MetaDb, id: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('cohorts')
    .select(['version', 'pending_version'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const next = Math.max(row.version ?? 0, row.pending_version ?? 0) + 1;
  const claimed = await db
    .updateTable('cohorts')
    .set({ is_calculating: true, pending_version: next })
    .where('id', '=', id)
    .where('is_calculating', '=', false)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1 ? next : undefined;
}

export async function finishCalculation(db: MetaDb, id: number, version: number, count: number, at: string) {
  await db
    .updateTable('cohorts')
    .set({
      is_calculating: false,
      version,
      pending_version: null,
      count,
      last_calculation: at,
      errors_calculating: 0,
    })
    .where('id', '=', id)
    .execute();
}

export async function failCalculation(db: MetaDb, id: number, error: string, at: string) {
  await db
    .updateTable('cohorts')
    .set((eb) => ({
      is_calculating: false,
      pending_version: null,
      errors_calculating: eb('errors_calculating', '+', 1),
      last_error: error.slice(0, 1000),
      last_error_at: at,
    }))
    .where('id', '=', id)
    .execute();
}

export async function setStaticCount(db: MetaDb, id: number, count: number, at: string) {
  await db.updateTable('cohorts').set({ count, last_calculation: at }).where('id', '=', id).execute();
}

/** Dynamic cohorts not deleted whose last calculation is older than `before` (or never ran). */
export async function staleCohorts(
  db: MetaDb,
  before: string,
  limit: number,
): Promise<Array<{ id: number; teamId: number }>> {
  const rows = await db
    .selectFrom('cohorts')
    .select(['id', 'team_id'])
    .where('deleted', '=', false)
    .where('is_static', '=', false)
    .where('is_calculating', '=', false)
    .where((eb) => eb.or([eb('last_calculation', 'is', null), eb('last_calculation', '<', before)]))
    .orderBy('last_calculation')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, teamId: r.team_id }));
}
