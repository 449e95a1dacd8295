import { LRUCache } from 'lru-cache';
import { scopedEvents } from '../../store/events/scoped.js';
import type { EventsStore } from '../../store/events/store.js';

/** What a project has actually sent lately: the names templates and the model may use. */
export interface Catalog {
  /** Most frequent first. */
  events: Array<{ name: string; count: number }>;
  /** Event (`properties.x`) and person (`person.properties.x`) keys, most frequent first. */
  properties: Array<{ key: string; kind: 'event' | 'person'; count: number }>;
}

export const EMPTY_CATALOG: Catalog = { events: [], properties: [] };

const WINDOW_DAYS = 30;
/** Property keys come from a sample: reading every JSON blob of a month would be a full scan. */
const SAMPLE_ROWS = 20_000;
/** Keys that hold person updates, not event facts. */
const SKIPPED_KEYS = new Set(['$set', '$set_once', '$unset', '$groups']);

const stamp = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '');

/** Two small reads, both parameterised and limited to the team and the last 30 days. */
export async function loadCatalog(events: EventsStore, teamId: number, now: Date): Promise<Catalog> {
  const table = events.table('events');
  const params = { team: teamId, since: stamp(new Date(now.getTime() - WINDOW_DAYS * 86_400_000)) };
  const settings = { max_execution_time: 15 };
  const scoped = scopedEvents(events, { teamId });
  const where = `team_id = {team:Int64} AND timestamp >= {since:DateTime64(6, 'UTC')}`;
  const [names, keys] = await Promise.all([
    scoped.query<{ event: string; n: number }>(
      `SELECT event, count() AS n FROM ${table} WHERE ${where} GROUP BY event ORDER BY n DESC, event LIMIT 200`,
      { params, settings },
    ),
    scoped.query<{ key: string; n: number }>(
      `SELECT key, count() AS n FROM (SELECT properties, person_properties FROM ${table} WHERE ${where} LIMIT ${SAMPLE_ROWS})
       ARRAY JOIN arrayConcat(
         arrayMap(k -> concat('e', k), JSONExtractKeys(properties)),
         arrayMap(k -> concat('p', k), JSONExtractKeys(person_properties))) AS key
       GROUP BY key ORDER BY n DESC, key LIMIT 600`,
      { params, settings },
    ),
  ]);
  return {
    events: names.map((r) => ({ name: r.event, count: Number(r.n) })),
    properties: keys
      .map((r) => ({
        key: r.key.slice(1),
        kind: r.key.startsWith('p') ? ('person' as const) : ('event' as const),
        count: Number(r.n),
      }))
      .filter((p) => p.key !== '' && !SKIPPED_KEYS.has(p.key)),
  };
}

export interface CatalogSource {
  get(teamId: number): Promise<Catalog>;
}

/**
 * Catalogs cached per team for `ttlMs`, so drafting never scans on every call; concurrent misses
 * share one load. A failed load is not cached: the next call tries again.
 */
export function catalogCache(
  events: EventsStore,
  now: () => Date,
  options: { ttlMs?: number; maxTeams?: number } = {},
): CatalogSource {
  const cache = new LRUCache<number, Catalog>({
    max: options.maxTeams ?? 1000,
    ttl: options.ttlMs ?? 60_000,
    // The injected clock, read on every check (the default debounce would miss a jump of it).
    perf: { now: () => now().getTime() },
    ttlResolution: 0,
    fetchMethod: (teamId) => loadCatalog(events, teamId, now()),
  });
  return {
    async get(teamId) {
      return (await cache.fetch(teamId)) ?? EMPTY_CATALOG;
    },
  };
}
