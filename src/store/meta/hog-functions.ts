import type { ColumnType } from 'kysely';
import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { countDestinationWrite } from './local-writes.js';

export interface HogFunctionsTable {
  id: string;
  team_id: number;
  type: string;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  enabled: ColumnType<boolean | number, boolean | undefined, boolean>;
  deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
  template_id: string | null;
  hog: ColumnType<string, string | undefined, string>;
  icon_url: string | null;
  inputs_schema: string;
  inputs: string;
  filters: string;
  masking: string | null;
  created_at: ColumnType<Date | string, string, string>;
  created_by: number | null;
  updated_at: ColumnType<Date | string, string, string>;
  failing_since: ColumnType<Date | string | null, string | null | undefined, string | null>;
}

declare module './tables.js' {
  interface MetaTables {
    hog_functions: HogFunctionsTable;
  }
}

export interface HogFunctionRecord {
  id: string;
  teamId: number;
  type: string;
  name: string;
  description: string;
  enabled: boolean;
  deleted: boolean;
  templateId: string | null;
  hog: string;
  iconUrl: string | null;
  inputsSchema: Array<Record<string, unknown>>;
  /** Secret values included: the domain strips them from every answer. */
  inputs: Record<string, Record<string, unknown>>;
  filters: Record<string, unknown>;
  masking: Record<string, unknown> | null;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
  /** When the current run of failed deliveries began (every node's view); null: none. */
  failingSince?: string | null;
}

type Row = {
  id: string;
  team_id: number;
  type: string;
  name: string;
  description: string;
  enabled: boolean | number;
  deleted: boolean | number;
  template_id: string | null;
  hog: string;
  icon_url: string | null;
  inputs_schema: string;
  inputs: string;
  filters: string;
  masking: string | null;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
  failing_since?: Date | string | null;
};

const toRecord = (r: Row): HogFunctionRecord => ({
  id: r.id,
  teamId: r.team_id,
  type: r.type,
  name: r.name,
  description: r.description,
  enabled: bool(r.enabled),
  deleted: bool(r.deleted),
  templateId: r.template_id,
  hog: r.hog,
  iconUrl: r.icon_url,
  inputsSchema: json(r.inputs_schema),
  inputs: json(r.inputs),
  filters: json(r.filters),
  masking: r.masking === null ? null : json(r.masking),
  createdAt: iso(r.created_at),
  createdBy: r.created_by,
  updatedAt: iso(r.updated_at),
  failingSince: isoOrNull(r.failing_since),
});

const toRow = (f: Partial<HogFunctionRecord>) => ({
  ...(f.type !== undefined && { type: f.type }),
  ...(f.name !== undefined && { name: f.name }),
  ...(f.description !== undefined && { description: f.description }),
  ...(f.enabled !== undefined && { enabled: f.enabled }),
  ...(f.deleted !== undefined && { deleted: f.deleted }),
  ...(f.templateId !== undefined && { template_id: f.templateId }),
  ...(f.hog !== undefined && { hog: f.hog }),
  ...(f.iconUrl !== undefined && { icon_url: f.iconUrl }),
  ...(f.inputsSchema !== undefined && { inputs_schema: toJson(f.inputsSchema) }),
  ...(f.inputs !== undefined && { inputs: toJson(f.inputs) }),
  ...(f.filters !== undefined && { filters: toJson(f.filters) }),
  ...(f.masking !== undefined && { masking: f.masking === null ? null : toJson(f.masking) }),
  ...(f.updatedAt !== undefined && { updated_at: f.updatedAt }),
  ...(f.failingSince !== undefined && { failing_since: f.failingSince }),
});

export async function insertHogFunction(db: MetaDb, f: HogFunctionRecord): Promise<void> {
  // Counted once written (local-writes.ts): a reader that saw the count then reads anew.
  try {
    await db
      .insertInto('hog_functions')
      .values({
        ...toRow(f),
        id: f.id,
        team_id: f.teamId,
        type: f.type,
        name: f.name,
        inputs_schema: toJson(f.inputsSchema),
        inputs: toJson(f.inputs),
        filters: toJson(f.filters),
        created_at: f.createdAt,
        created_by: f.createdBy,
        updated_at: f.updatedAt,
      })
      .execute();
  } finally {
    countDestinationWrite();
  }
}

export async function findHogFunction(db: MetaDb, teamId: number, id: string) {
  const row = await db
    .selectFrom('hog_functions')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('deleted', '=', false)
    .executeTakeFirst();
  return row && toRecord(row as Row);
}

export async function listHogFunctions(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number; type?: string | undefined; enabled?: boolean | undefined },
) {
  let q = db.selectFrom('hog_functions').where('team_id', '=', teamId).where('deleted', '=', false);
  if (page.type !== undefined) q = q.where('type', '=', page.type);
  if (page.enabled !== undefined) q = q.where('enabled', '=', page.enabled);
  const [rows, total] = await Promise.all([
    q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { count: Number(total.n), results: rows.map((r) => toRecord(r as Row)) };
}

/** Every enabled destination of a team (what delivery matches events against). */
export async function enabledHogFunctions(db: MetaDb, teamId: number): Promise<HogFunctionRecord[]> {
  const rows = await db
    .selectFrom('hog_functions')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('deleted', '=', false)
    .where('enabled', '=', true)
    .execute();
  return rows.map((r) => toRecord(r as Row));
}

export async function updateHogFunction(
  db: MetaDb,
  teamId: number,
  id: string,
  change: Partial<HogFunctionRecord>,
): Promise<void> {
  // Counted once written (local-writes.ts): a reader that saw the count then reads anew.
  try {
    await db
      .updateTable('hog_functions')
      .set(toRow(change))
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .execute();
  } finally {
    countDestinationWrite();
  }
}

/** Every enabled destination of every project (what delivery matches written events against). */
export async function allEnabledHogFunctions(db: MetaDb): Promise<HogFunctionRecord[]> {
  const rows = await db
    .selectFrom('hog_functions')
    .selectAll()
    .where('deleted', '=', false)
    .where('enabled', '=', true)
    .execute();
  return rows.map((r) => toRecord(r as Row));
}

/**
 * A failed delivery: the destination's run of failures starts now unless one has already started
 * (on any node). Answers when the run began.
 */
export async function markFailing(db: MetaDb, id: string, now: string): Promise<string> {
  await db
    .updateTable('hog_functions')
    .set({ failing_since: now })
    .where('id', '=', id)
    .where('failing_since', 'is', null)
    .execute();
  const row = await db
    .selectFrom('hog_functions')
    .select('failing_since')
    .where('id', '=', id)
    .executeTakeFirst();
  return isoOrNull(row?.failing_since) ?? now;
}

/** A delivery went through: the run of failures (any node's) is over. */
export async function clearFailing(db: MetaDb, id: string): Promise<void> {
  await db
    .updateTable('hog_functions')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute();
}

/** Projects with an enabled destination or an action posting to Slack (capture matches their events early). */
export async function teamsWithDestinations(db: MetaDb): Promise<number[]> {
  const rows = await db
    .selectFrom('hog_functions')
    .select('team_id')
    .where('deleted', '=', false)
    .where('enabled', '=', true)
    .union(
      db
        .selectFrom('actions')
        .select('team_id')
        .where('post_to_slack', '=', true)
        .where('deleted', '=', false),
    )
    .execute();
  return rows.map((r) => Number(r.team_id));
}
