import type { ColumnType } from 'kysely';
import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface ExperimentsTable {
  id: ColumnType<number, never, never>;
  team_id: number;
  name: string;
  description: string;
  feature_flag_id: number;
  start_date: ColumnType<Date | string | null, string | null, string | null>;
  end_date: ColumnType<Date | string | null, string | null, string | null>;
  archived: ColumnType<boolean | number, boolean | undefined, boolean>;
  deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
  config: string;
  created_at: ColumnType<Date | string, string, never>;
  created_by: ColumnType<number | null, number | null, never>;
  updated_at: ColumnType<Date | string, string, string>;
}

declare module './tables.js' {
  interface MetaTables {
    experiments: ExperimentsTable;
  }
}

/** The fields PostHog keeps on an experiment that Burrow stores as one JSON document. */
export interface ExperimentConfig {
  parameters: Record<string, unknown>;
  metrics: unknown[];
  metrics_secondary: unknown[];
  saved_metrics_ids: unknown[];
  exposure_criteria: Record<string, unknown> | null;
  holdout_id: number | null;
  type: string;
  conclusion: string | null;
  conclusion_comment: string | null;
  stats_config: Record<string, unknown> | null;
  filters: Record<string, unknown>;
}

export interface ExperimentRecord {
  id: number;
  teamId: number;
  name: string;
  description: string;
  featureFlagId: number;
  startDate: string | null;
  endDate: string | null;
  archived: boolean;
  deleted: boolean;
  config: ExperimentConfig;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
}

type Row = {
  id: number;
  team_id: number;
  name: string;
  description: string;
  feature_flag_id: number;
  start_date: Date | string | null;
  end_date: Date | string | null;
  archived: boolean | number;
  deleted: boolean | number;
  config: string;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
};

const toRecord = (r: Row): ExperimentRecord => ({
  id: Number(r.id),
  teamId: r.team_id,
  name: r.name,
  description: r.description,
  featureFlagId: Number(r.feature_flag_id),
  startDate: isoOrNull(r.start_date),
  endDate: isoOrNull(r.end_date),
  archived: bool(r.archived),
  deleted: bool(r.deleted),
  config: json<ExperimentConfig>(r.config),
  createdAt: iso(r.created_at),
  createdBy: r.created_by,
  updatedAt: iso(r.updated_at),
});

export async function insertExperiment(
  db: MetaDb,
  e: Omit<ExperimentRecord, 'id' | 'archived' | 'deleted'>,
): Promise<number> {
  const row = await db
    .insertInto('experiments')
    .values({
      team_id: e.teamId,
      name: e.name,
      description: e.description,
      feature_flag_id: e.featureFlagId,
      start_date: e.startDate,
      end_date: e.endDate,
      config: toJson(e.config),
      created_at: e.createdAt,
      created_by: e.createdBy,
      updated_at: e.updatedAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findExperiment(
  db: MetaDb,
  teamId: number,
  id: number,
): Promise<ExperimentRecord | undefined> {
  const row = await db
    .selectFrom('experiments')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('deleted', '=', false)
    .executeTakeFirst();
  return row && toRecord(row as Row);
}

/** Live experiments, newest first; `archived` narrows to archived or not when given. */
export async function listExperiments(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number; archived?: boolean | undefined },
): Promise<{ count: number; results: ExperimentRecord[] }> {
  let q = db.selectFrom('experiments').where('team_id', '=', teamId).where('deleted', '=', false);
  if (page.archived !== undefined) q = q.where('archived', '=', page.archived);
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

export type ExperimentPatch = Partial<
  Pick<ExperimentRecord, 'name' | 'description' | 'startDate' | 'endDate' | 'archived' | 'deleted' | 'config'>
> & { updatedAt: string };

export async function updateExperiment(
  db: MetaDb,
  teamId: number,
  id: number,
  p: ExperimentPatch,
): Promise<void> {
  await db
    .updateTable('experiments')
    .set({
      updated_at: p.updatedAt,
      ...(p.name !== undefined ? { name: p.name } : {}),
      ...(p.description !== undefined ? { description: p.description } : {}),
      ...(p.startDate !== undefined ? { start_date: p.startDate } : {}),
      ...(p.endDate !== undefined ? { end_date: p.endDate } : {}),
      ...(p.archived !== undefined ? { archived: p.archived } : {}),
      ...(p.deleted !== undefined ? { deleted: p.deleted } : {}),
      ...(p.config !== undefined ? { config: toJson(p.config) } : {}),
    })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .execute();
}

/** Live experiments that have been launched and not stopped, on a flag (guards the flag's deletion). */
export async function runningExperimentsOnFlag(db: MetaDb, teamId: number, flagId: number): Promise<number> {
  const row = await db
    .selectFrom('experiments')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('team_id', '=', teamId)
    .where('feature_flag_id', '=', flagId)
    .where('deleted', '=', false)
    .where('start_date', 'is not', null)
    .where('end_date', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** A summary of the team's experiments (latest change, count): part of result cache keys. */
export async function experimentsState(db: MetaDb, teamId: number): Promise<string> {
  const row = await db
    .selectFrom('experiments')
    .select((eb) => [eb.fn.max('updated_at').as('at'), eb.fn.countAll<number>().as('n')])
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  const at = row?.at;
  return `${at ? iso(at as Date | string) : '-'}/${Number(row?.n ?? 0)}`;
}
