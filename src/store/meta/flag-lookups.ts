import { iso, json } from './codec.js';
import type { MetaDb } from './db.js';
import { prepared } from './prepared.js';

/** Group type name by index (`{"0": "company"}`), as SDKs receive it. */
export async function groupTypeMapping(db: MetaDb, teamId: number): Promise<Record<string, string>> {
  const rows = await db
    .selectFrom('group_type_mappings')
    .select(['group_type', 'group_type_index'])
    .where('team_id', '=', teamId)
    .execute();
  return Object.fromEntries(rows.map((r) => [String(r.group_type_index), r.group_type]));
}

/** Properties of the named groups, one statement for all of them; missing groups are absent. */
export async function groupPropertiesOf(
  db: MetaDb,
  teamId: number,
  wanted: ReadonlyArray<{ index: number; key: string }>,
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  if (wanted.length === 0) return found;
  const rows = await db
    .selectFrom('groups')
    .select(['group_type_index', 'group_key', 'properties'])
    .where('team_id', '=', teamId)
    .where((eb) =>
      eb.or(wanted.map((w) => eb.and([eb('group_type_index', '=', w.index), eb('group_key', '=', w.key)]))),
    )
    .execute();
  for (const r of rows)
    found.set(`${r.group_type_index}:${r.group_key}`, json<Record<string, unknown>>(r.properties) ?? {});
  return found;
}

const personAndOverrides = prepared(
  (db: MetaDb, teamId: number, distinctId: string) =>
    db
      .selectFrom('person_distinct_ids as d')
      .innerJoin('persons as p', 'p.id', 'd.person_id')
      .leftJoin('feature_flag_hash_key_overrides as o', (join) =>
        join.onRef('o.person_id', '=', 'p.id').onRef('o.team_id', '=', 'd.team_id'),
      )
      .select(['p.id', 'p.properties', 'p.created_at', 'o.feature_flag_key', 'o.hash_key'])
      .where('d.team_id', '=', teamId)
      .where('d.distinct_id', '=', distinctId),
  2,
);

export interface PersonForFlags {
  id: string;
  properties: Record<string, unknown>;
  createdAt: string;
  /** Experience continuity: the bucketing key per flag key. */
  hashKeyOverrides: Map<string, string>;
}

/**
 * The person behind a distinct id with its properties and continuity overrides, in one statement
 * whatever the number of flags: evaluation never goes back to the store per flag.
 */
export async function personForFlags(
  db: MetaDb,
  teamId: number,
  distinctId: string,
): Promise<PersonForFlags | undefined> {
  const rows = await personAndOverrides(db, teamId, distinctId);
  const first = rows[0];
  if (!first) return undefined;
  const overrides = new Map<string, string>();
  for (const r of rows)
    if (r.feature_flag_key !== null && r.hash_key !== null) overrides.set(r.feature_flag_key, r.hash_key);
  return {
    id: first.id,
    properties: json<Record<string, unknown>>(first.properties) ?? {},
    createdAt: iso(first.created_at),
    hashKeyOverrides: overrides,
  };
}

/**
 * Remembers `hashKey` as the bucketing key of every given flag for the persons behind `distinctIds`,
 * keeping any override already there (the first one a person got wins, as in PostHog).
 */
export async function saveHashKeyOverrides(
  db: MetaDb,
  teamId: number,
  distinctIds: readonly string[],
  flagKeys: readonly string[],
  hashKey: string,
): Promise<void> {
  if (flagKeys.length === 0 || distinctIds.length === 0) return;
  const persons = await db
    .selectFrom('person_distinct_ids')
    .select('person_id')
    .distinct()
    .where('team_id', '=', teamId)
    .where('distinct_id', 'in', [...distinctIds])
    .execute();
  if (persons.length === 0) return;
  const values = persons.flatMap((p) =>
    flagKeys.map((key) => ({
      team_id: teamId,
      person_id: p.person_id,
      feature_flag_key: key,
      hash_key: hashKey,
    })),
  );
  await db
    .insertInto('feature_flag_hash_key_overrides')
    .values(values)
    .onConflict((oc) => oc.columns(['team_id', 'person_id', 'feature_flag_key']).doNothing())
    .execute();
}

export interface SecretKeyRecord {
  teamId: number;
  maskValue: string;
  createdAt: string;
}

const bySecret = prepared(
  (db: MetaDb, secureValue: string) =>
    db.selectFrom('project_secret_api_keys').select('team_id').where('secure_value', '=', secureValue),
  1,
);

export async function teamIdBySecretKey(db: MetaDb, secureValue: string): Promise<number | undefined> {
  const [row] = await bySecret(db, secureValue);
  return row?.team_id;
}

export async function findSecretKey(db: MetaDb, teamId: number): Promise<SecretKeyRecord | undefined> {
  const row = await db
    .selectFrom('project_secret_api_keys')
    .selectAll()
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  return row && { teamId: row.team_id, maskValue: row.mask_value, createdAt: iso(row.created_at) };
}

/** Sets (or replaces: rotation) the project's secret key. */
export async function saveSecretKey(
  db: MetaDb,
  teamId: number,
  secureValue: string,
  maskValue: string,
  createdAt: string,
  createdBy: number | null,
): Promise<void> {
  await db
    .insertInto('project_secret_api_keys')
    .values({
      team_id: teamId,
      secure_value: secureValue,
      mask_value: maskValue,
      created_at: createdAt,
      created_by: createdBy,
    })
    .onConflict((oc) =>
      oc.column('team_id').doUpdateSet({
        secure_value: secureValue,
        mask_value: maskValue,
        created_at: createdAt,
        created_by: createdBy,
      }),
    )
    .execute();
}

export async function deleteSecretKey(db: MetaDb, teamId: number): Promise<void> {
  await db.deleteFrom('project_secret_api_keys').where('team_id', '=', teamId).execute();
}
