import { bool, iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface SurveyRecord {
  id: string;
  teamId: number;
  name: string;
  description: string;
  type: string;
  questions: Array<Record<string, unknown>>;
  conditions: Record<string, unknown> | null;
  appearance: Record<string, unknown> | null;
  settings: Record<string, unknown>;
  linkedFlagId: number | null;
  targetingFlagId: number | null;
  internalTargetingFlagId: number | null;
  startDate: string | null;
  endDate: string | null;
  archived: boolean;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
}

export type SurveyPatch = Partial<Omit<SurveyRecord, 'id' | 'teamId' | 'createdAt' | 'createdBy'>>;

type Row = {
  id: string;
  team_id: number;
  name: string;
  description: string;
  type: string;
  questions: unknown;
  conditions: unknown;
  appearance: unknown;
  settings: unknown;
  linked_flag_id: number | null;
  targeting_flag_id: number | null;
  internal_targeting_flag_id: number | null;
  start_date: Date | string | null;
  end_date: Date | string | null;
  archived: boolean | number;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
};

const toSurvey = (r: Row): SurveyRecord => ({
  id: r.id,
  teamId: r.team_id,
  name: r.name,
  description: r.description,
  type: r.type,
  questions: json(r.questions),
  conditions: r.conditions === null ? null : json(r.conditions),
  appearance: r.appearance === null ? null : json(r.appearance),
  settings: json(r.settings),
  linkedFlagId: r.linked_flag_id,
  targetingFlagId: r.targeting_flag_id,
  internalTargetingFlagId: r.internal_targeting_flag_id,
  startDate: isoOrNull(r.start_date),
  endDate: isoOrNull(r.end_date),
  archived: bool(r.archived),
  createdAt: iso(r.created_at),
  createdBy: r.created_by,
  updatedAt: iso(r.updated_at),
});

const jsonOrNull = (v: unknown) => (v === null ? null : toJson(v));

function columns(p: SurveyPatch): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (p.name !== undefined) set.name = p.name;
  if (p.description !== undefined) set.description = p.description;
  if (p.type !== undefined) set.type = p.type;
  if (p.questions !== undefined) set.questions = toJson(p.questions);
  if (p.conditions !== undefined) set.conditions = jsonOrNull(p.conditions);
  if (p.appearance !== undefined) set.appearance = jsonOrNull(p.appearance);
  if (p.settings !== undefined) set.settings = toJson(p.settings);
  if (p.linkedFlagId !== undefined) set.linked_flag_id = p.linkedFlagId;
  if (p.targetingFlagId !== undefined) set.targeting_flag_id = p.targetingFlagId;
  if (p.internalTargetingFlagId !== undefined) set.internal_targeting_flag_id = p.internalTargetingFlagId;
  if (p.startDate !== undefined) set.start_date = p.startDate;
  if (p.endDate !== undefined) set.end_date = p.endDate;
  if (p.archived !== undefined) set.archived = p.archived;
  if (p.updatedAt !== undefined) set.updated_at = p.updatedAt;
  return set;
}

export async function insertSurvey(db: MetaDb, s: SurveyRecord): Promise<SurveyRecord> {
  const row = await db
    .insertInto('surveys')
    .values({
      id: s.id,
      team_id: s.teamId,
      created_at: s.createdAt,
      created_by: s.createdBy,
      name: s.name,
      description: s.description,
      type: s.type,
      questions: toJson(s.questions),
      conditions: jsonOrNull(s.conditions),
      appearance: jsonOrNull(s.appearance),
      settings: toJson(s.settings),
      linked_flag_id: s.linkedFlagId,
      targeting_flag_id: s.targetingFlagId,
      internal_targeting_flag_id: s.internalTargetingFlagId,
      start_date: s.startDate,
      end_date: s.endDate,
      archived: s.archived,
      updated_at: s.updatedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSurvey(row as Row);
}

export async function updateSurvey(
  db: MetaDb,
  teamId: number,
  id: string,
  patch: SurveyPatch,
): Promise<SurveyRecord | undefined> {
  const row = await db
    .updateTable('surveys')
    .set(columns(patch))
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toSurvey(row as Row);
}

export async function findSurvey(db: MetaDb, teamId: number, id: string): Promise<SurveyRecord | undefined> {
  const row = await db
    .selectFrom('surveys')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toSurvey(row as Row);
}

export async function surveyNamed(
  db: MetaDb,
  teamId: number,
  name: string,
  exceptId: string | null,
): Promise<boolean> {
  let q = db.selectFrom('surveys').select('id').where('team_id', '=', teamId).where('name', '=', name);
  if (exceptId !== null) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Newest first; `archived` narrows when given. */
export async function listSurveys(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number },
  archived?: boolean,
): Promise<{ count: number; results: SurveyRecord[] }> {
  let base = db.selectFrom('surveys').where('team_id', '=', teamId);
  if (archived !== undefined) base = base.where('archived', '=', archived);
  const [{ n }] = (await base.select((eb) => eb.fn.countAll<number>().as('n')).execute()) as [{ n: number }];
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(n), results: rows.map((r) => toSurvey(r as Row)) };
}

/** Every survey of the project that is not archived (what the SDK list starts from). */
export async function liveSurveys(db: MetaDb, teamId: number): Promise<SurveyRecord[]> {
  const rows = await db
    .selectFrom('surveys')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('archived', '=', false)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => toSurvey(r as Row));
}

export async function deleteSurvey(db: MetaDb, teamId: number, id: string): Promise<void> {
  await db.deleteFrom('surveys').where('team_id', '=', teamId).where('id', '=', id).execute();
}

/** Whether a survey of a type posthog-js shows has started, not ended and is not archived. */
export async function hasRunningSurvey(db: MetaDb, teamId: number, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('surveys')
    .select('id')
    .where('team_id', '=', teamId)
    .where('archived', '=', false)
    .where('type', '!=', 'api')
    .where('start_date', 'is not', null)
    .where('start_date', '<=', now)
    .where((eb) => eb.or([eb('end_date', 'is', null), eb('end_date', '>', now)]))
    .executeTakeFirst();
  return row !== undefined;
}
