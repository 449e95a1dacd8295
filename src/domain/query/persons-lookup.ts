import type { SelectQuery } from '../../hogql/ast.js';
import { parseSelect } from '../../hogql/parse.js';
import type { RunnerContext } from './context.js';
import { runSelect } from './run-select.js';
import { isoDateTime, parseJsonObject } from './values.js';

/**
 * Follow-up lookups that turn ids in a page of results into person objects, as PostHog does after
 * the main query. They read the events store's current person rows through HogQL, in batches.
 */
const BATCH = 1000;
/** PostHog shows at most this many distinct ids per person. */
const MAX_DISTINCT_IDS = 101;

async function inBatches<T>(ids: string[], each: (batch: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += BATCH) out.push(...(await each(unique.slice(i, i + BATCH))));
  return out;
}

const BY_DISTINCT_ID = `
  SELECT pdi.distinct_id, p.id, p.created_at, p.properties
  FROM person_distinct_ids AS pdi INNER JOIN persons AS p ON p.id = pdi.person_id
  WHERE pdi.distinct_id IN {ids}`;

export interface EventPerson {
  uuid: string;
  created_at: unknown;
  properties: Record<string, unknown>;
  distinct_id: string;
}

/** EventsQuery's `person` column: the person of each distinct id, or just the distinct id. */
export async function personsByDistinctId(
  distinctIds: string[],
  ctx: RunnerContext,
): Promise<Map<string, Omit<EventPerson, 'distinct_id'>>> {
  const rows = await inBatches(distinctIds, async (ids) => {
    const run = await runSelect(parseSelect(BY_DISTINCT_ID) as SelectQuery, ctx, { values: { ids } });
    return run.rows.map((r) => ({ r, zone: run.timezone }));
  });
  return new Map(
    rows.map(({ r, zone }) => [
      String(r[0]),
      { uuid: String(r[1]), created_at: isoDateTime(r[2], zone), properties: parseJsonObject(r[3]) },
    ]),
  );
}

const PERSONS = 'SELECT id, properties, is_identified, created_at FROM persons WHERE id IN {ids}';
const DISTINCT_IDS = `SELECT person_id, groupArray(${MAX_DISTINCT_IDS})(distinct_id) FROM person_distinct_ids WHERE person_id IN {ids} GROUP BY person_id`;

export interface Actor {
  id: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: unknown;
  distinct_ids: string[];
}

/** ActorsQuery's `person` column: each person with its properties and distinct ids. */
export async function personsById(ids: string[], ctx: RunnerContext): Promise<Map<string, Actor>> {
  const valid = ids
    .map(String)
    .filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
  const persons = await inBatches(valid, async (batch) => {
    const run = await runSelect(parseSelect(PERSONS) as SelectQuery, ctx, { values: { ids: batch } });
    return run.rows.map((r) => ({ r, zone: run.timezone }));
  });
  const found = persons.map(({ r }) => String(r[0]));
  const distinct = await inBatches(found, async (batch) => {
    const run = await runSelect(parseSelect(DISTINCT_IDS) as SelectQuery, ctx, { values: { ids: batch } });
    return run.rows;
  });
  const distinctById = new Map(distinct.map((r) => [String(r[0]), (r[1] as string[]) ?? []]));
  return new Map(
    persons.map(({ r, zone }) => {
      const id = String(r[0]);
      return [
        id,
        {
          id,
          properties: parseJsonObject(r[1]),
          is_identified: r[2] === true || r[2] === 1,
          created_at: isoDateTime(r[3], zone),
          distinct_ids: distinctById.get(id) ?? [],
        },
      ];
    }),
  );
}
