import { iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface EarlyAccessFeatureRecord {
  id: string;
  teamId: number;
  featureFlagId: number | null;
  name: string;
  description: string;
  stage: string;
  documentationUrl: string;
  payload: Record<string, unknown>;
  createdAt: string;
}

export type EarlyAccessPatch = Partial<
  Pick<EarlyAccessFeatureRecord, 'name' | 'description' | 'stage' | 'documentationUrl' | 'payload'>
>;

type Row = {
  id: string;
  team_id: number;
  feature_flag_id: number | null;
  name: string;
  description: string;
  stage: string;
  documentation_url: string;
  payload: unknown;
  created_at: Date | string;
};

const toFeature = (r: Row): EarlyAccessFeatureRecord => ({
  id: r.id,
  teamId: r.team_id,
  featureFlagId: r.feature_flag_id,
  name: r.name,
  description: r.description,
  stage: r.stage,
  documentationUrl: r.documentation_url,
  payload: json(r.payload),
  createdAt: iso(r.created_at),
});

export async function insertEarlyAccessFeature(
  db: MetaDb,
  f: EarlyAccessFeatureRecord,
): Promise<EarlyAccessFeatureRecord> {
  const row = await db
    .insertInto('early_access_features')
    .values({
      id: f.id,
      team_id: f.teamId,
      feature_flag_id: f.featureFlagId,
      name: f.name,
      description: f.description,
      stage: f.stage,
      documentation_url: f.documentationUrl,
      payload: toJson(f.payload),
      created_at: f.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toFeature(row as Row);
}

export async function updateEarlyAccessFeature(
  db: MetaDb,
  teamId: number,
  id: string,
  p: EarlyAccessPatch,
): Promise<EarlyAccessFeatureRecord | undefined> {
  const set: Record<string, unknown> = {};
  if (p.name !== undefined) set.name = p.name;
  if (p.description !== undefined) set.description = p.description;
  if (p.stage !== undefined) set.stage = p.stage;
  if (p.documentationUrl !== undefined) set.documentation_url = p.documentationUrl;
  if (p.payload !== undefined) set.payload = toJson(p.payload);
  if (Object.keys(set).length === 0) return findEarlyAccessFeature(db, teamId, id);
  const row = await db
    .updateTable('early_access_features')
    .set(set)
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toFeature(row as Row);
}

export async function findEarlyAccessFeature(
  db: MetaDb,
  teamId: number,
  id: string,
): Promise<EarlyAccessFeatureRecord | undefined> {
  const row = await db
    .selectFrom('early_access_features')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toFeature(row as Row);
}

/** The feature a flag serves, if any (a flag serves at most one). */
export async function earlyAccessFeatureOfFlag(
  db: MetaDb,
  teamId: number,
  flagId: number,
): Promise<EarlyAccessFeatureRecord | undefined> {
  const row = await db
    .selectFrom('early_access_features')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('feature_flag_id', '=', flagId)
    .executeTakeFirst();
  return row && toFeature(row as Row);
}

/** Newest first; `stages` narrows when given. */
export async function listEarlyAccessFeatures(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number },
  stages?: string[],
): Promise<{ count: number; results: EarlyAccessFeatureRecord[] }> {
  let base = db.selectFrom('early_access_features').where('team_id', '=', teamId);
  if (stages && stages.length > 0) base = base.where('stage', 'in', stages);
  const [{ n }] = (await base.select((eb) => eb.fn.countAll<number>().as('n')).execute()) as [{ n: number }];
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(n), results: rows.map((r) => toFeature(r as Row)) };
}

export async function deleteEarlyAccessFeature(db: MetaDb, teamId: number, id: string): Promise<void> {
  await db.deleteFrom('early_access_features').where('team_id', '=', teamId).where('id', '=', id).execute();
}
