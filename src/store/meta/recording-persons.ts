import { iso, json } from './codec.js';
import type { MetaDb } from './db.js';

export interface RecordingPerson {
  id: string;
  properties: Record<string, unknown>;
  createdAt: string;
  distinctIds: string[];
}

/** The persons behind recordings' distinct ids, each with all of its distinct ids, keyed by the asked id. */
export async function personsByDistinctIds(
  db: MetaDb,
  teamId: number,
  distinctIds: string[],
): Promise<Map<string, RecordingPerson>> {
  const out = new Map<string, RecordingPerson>();
  const wanted = [...new Set(distinctIds)];
  if (wanted.length === 0) return out;
  const owners = await db
    .selectFrom('person_distinct_ids as d')
    .innerJoin('persons as p', 'p.id', 'd.person_id')
    .select(['d.distinct_id', 'p.id', 'p.properties', 'p.created_at'])
    .where('d.team_id', '=', teamId)
    .where('d.distinct_id', 'in', wanted)
    .execute();
  if (owners.length === 0) return out;
  const all = await db
    .selectFrom('person_distinct_ids')
    .select(['person_id', 'distinct_id'])
    .where('team_id', '=', teamId)
    .where('person_id', 'in', [...new Set(owners.map((o) => o.id))])
    .orderBy('distinct_id')
    .execute();
  const idsOf = new Map<string, string[]>();
  for (const r of all) idsOf.set(r.person_id, [...(idsOf.get(r.person_id) ?? []), r.distinct_id]);
  for (const o of owners) {
    out.set(o.distinct_id, {
      id: o.id,
      properties: json<Record<string, unknown>>(o.properties) ?? {},
      createdAt: iso(o.created_at),
      distinctIds: idsOf.get(o.id) ?? [o.distinct_id],
    });
  }
  return out;
}
