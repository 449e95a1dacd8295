import type { EventsStore } from '../../../store/events/store.js';
import type { ExportRow } from '../destinations/types.js';
import { filterSql, type PropertyFilter } from './filters.js';
import type { Source, SourceWindow } from './source.js';

const TS = (column: string) => `formatDateTime(${column}, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC')`;

/** Sorts together the rows of one window: pages follow this key, not OFFSET. */
interface Cursor {
  insertedAt: string;
  uuid: string;
}

export interface EventsSelection {
  teamId: number;
  filters: PropertyFilter[];
  includeEvents: string[];
  excludeEvents: string[];
  eventsSince?: string | undefined;
}

/**
 * Events whose `inserted_at` falls in the window, in pages of `pageRows` ordered by
 * (inserted_at, uuid); each page is one query resuming after the last row of the one before, so
 * memory holds one page whatever the window's size. Every query is filtered by team.
 */
export function eventsSource(
  store: EventsStore,
  sel: EventsSelection,
  window: SourceWindow,
  pageRows: number,
): Source {
  const filter = filterSql(sel.filters, 'e');
  const where = [
    'e.team_id = {team:Int64}',
    ...(window.start ? ["e.inserted_at >= {start:DateTime64(6, 'UTC')}"] : []),
    "e.inserted_at < {end:DateTime64(6, 'UTC')}",
    ...(sel.eventsSince ? ["e.timestamp >= toDateTime64({since:String}, 6, 'UTC')"] : []),
    ...(sel.includeEvents.length > 0 ? ['e.event IN {include:Array(String)}'] : []),
    ...(sel.excludeEvents.length > 0 ? ['e.event NOT IN {exclude:Array(String)}'] : []),
    filter.sql,
  ].join(' AND ');
  const params: Record<string, unknown> = {
    ...filter.params,
    team: sel.teamId,
    end: chTime(window.end),
    include: sel.includeEvents,
    exclude: sel.excludeEvents,
    since: sel.eventsSince,
  };
  if (window.start) params.start = chTime(window.start);
  const table = store.table('events');
  return {
    async count() {
      const [row] = await store.query<{ n: number }>(
        `SELECT count() AS n FROM ${table} AS e WHERE ${where}`,
        {
          params,
        },
      );
      return Number(row?.n ?? 0);
    },
    async *pages(signal) {
      let cursor: Cursor | undefined;
      for (;;) {
        const after = cursor ? "AND (e.inserted_at, e.uuid) > ({ci:DateTime64(6, 'UTC')}, {cu:UUID})" : '';
        const rows = await store.query<ExportRow>(
          `SELECT toString(e.uuid) AS uuid, e.event AS event, nullIf(e.properties, '') AS properties,
             e.distinct_id AS distinct_id, e.team_id AS team_id,
             ${TS('e.timestamp')} AS timestamp, ${TS('e.created_at')} AS created_at, e.elements_chain AS elements_chain,
             nullIf(toString(e.person_id), '00000000-0000-0000-0000-000000000000') AS person_id,
             nullIf(e.person_properties, '') AS person_properties, e.\`$session_id\` AS session_id,
             ${TS('e.inserted_at')} AS _inserted_at
           FROM ${table} AS e WHERE ${where} ${after}
           ORDER BY e.inserted_at, e.uuid LIMIT {limit:UInt32}`,
          {
            params: { ...params, limit: pageRows, ...(cursor && { ci: cursor.insertedAt, cu: cursor.uuid }) },
            signal,
          },
        );
        if (rows.length === 0) return;
        const last = rows[rows.length - 1]!;
        cursor = { insertedAt: chTime(last._inserted_at as string), uuid: last.uuid as string };
        yield rows;
        if (rows.length < pageRows) return;
      }
    },
  };
}

/** ISO 8601 → the DateTime64 text ClickHouse parses without guessing. */
export function chTime(iso: string): string {
  return iso.replace('T', ' ').replace('Z', '');
}
