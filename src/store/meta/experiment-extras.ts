import type { ColumnType, Kysely } from 'kysely';
import { iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

/** `experiment_holdouts` and `experiment_saved_metrics` share one shape: a named JSON document. */
export interface ExperimentExtrasTable {
  id: ColumnType<number, never, never>;
  team_id: number;
  name: string;
  description: string;
  body: string;
  created_at: ColumnType<Date | string, string, never>;
  created_by: ColumnType<number | null, number | null, never>;
  updated_at: ColumnType<Date | string, string, string>;
}

declare module './tables.js' {
  interface MetaTables {
    experiment_holdouts: ExperimentExtrasTable;
    experiment_saved_metrics: ExperimentExtrasTable;
  }
}

export type ExtrasKind = 'experiment_holdouts' | 'experiment_saved_metrics';

export interface ExtraRecord {
  id: number;
  teamId: number;
  name: string;
  description: string;
  body: Record<string, unknown>;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
}

type Row = {
  id: number;
  team_id: number;
  name: string;
  description: string;
  body: string;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
};

const toRecord = (r: Row): ExtraRecord => ({
  id: Number(r.id),
  teamId: r.team_id,
  name: r.name,
  description: r.description,
  body: json<Record<string, unknown>>(r.body),
  createdAt: iso(r.created_at),
  createdBy: r.created_by,
  updatedAt: iso(r.updated_at),
});

/** Both tables have the same columns: one table type serves either. */
const on = (db: MetaDb) => db as unknown as Kysely<{ t: ExperimentExtrasTable }>;

export async function insertExtra(db: MetaDb, kind: ExtrasKind, e: Omit<ExtraRecord, 'id'>): Promise<number> {
  const row = await on(db)
    .insertInto(kind as 't')
    .values({
      team_id: e.teamId,
      name: e.name,
      description: e.description,
      body: toJson(e.body),
      created_at: e.createdAt,
      created_by: e.createdBy,
      updated_at: e.updatedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findExtra(
  db: MetaDb,
  kind: ExtrasKind,
  teamId: number,
  id: number,
): Promise<ExtraRecord | undefined> {
  const row = await on(db)
    .selectFrom(kind as 't')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toRecord(row as Row);
}

export async function listExtras(
  db: MetaDb,
  kind: ExtrasKind,
  teamId: number,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: ExtraRecord[] }> {
  const q = on(db)
    .selectFrom(kind as 't')
    .where('team_id', '=', teamId);
  const total = await q.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const rows = await q
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total?.n ?? 0), results: rows.map((r) => toRecord(r as Row)) };
}

export async function updateExtra(
  db: MetaDb,
  kind: ExtrasKind,
  teamId: number,
  id: number,
  patch: { name?: string; description?: string; body?: Record<string, unknown>; updatedAt: string },
): Promise<void> {
  await on(db)
    .updateTable(kind as 't')
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.body !== undefined ? { body: toJson(patch.body) } : {}),
      updated_at: patch.updatedAt,
    })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .execute();
}

export async function deleteExtra(db: MetaDb, kind: ExtrasKind, teamId: number, id: number): Promise<void> {
  await on(db)
    .deleteFrom(kind as 't')
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .execute();
}
