import type { EventsStore } from '../../../store/events/store.js';
import type { ExportRow } from '../destinations/types.js';
import { chTime } from './events.js';
import type { Source, SourceWindow } from './source.js';

const TS = (e: string) => `formatDateTime(${e}, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC')`;

/**
 * Persons changed in the window (a `person` row version written in it), each as its latest
 * version with its current distinct ids; pages ordered by person id.
 */
export function personsSource(
  store: EventsStore,
  teamId: number,
  window: SourceWindow,
  pageRows: number,
): Source {
  const person = store.table('person');
  const changed = [
    'team_id = {team:Int64}',
    ...(window.start ? ["_timestamp >= {start:DateTime64(6, 'UTC')}"] : []),
    "_timestamp < {end:DateTime64(6, 'UTC')}",
  ].join(' AND ');
  const params: Record<string, unknown> = { team: teamId, end: chTime(window.end) };
  if (window.start) params.start = chTime(window.start);
  return {
    async count() {
      const [row] = await store.query<{ n: number }>(
        `SELECT uniqExact(id) AS n FROM ${person} WHERE ${changed}`,
        { params },
      );
      return Number(row?.n ?? 0);
    },
    async *pages(signal) {
      let after: string | undefined;
      for (;;) {
        const rows = await store.query<ExportRow>(
          `SELECT p.team_id AS team_id, toString(p.id) AS person_id, argMax(p.properties, p.version) AS properties,
             argMax(p.is_identified, p.version) AS is_identified, argMax(p.is_deleted, p.version) AS is_deleted,
             ${TS('argMax(p.created_at, p.version)')} AS created_at, max(p.version) AS version,
             ${TS('max(p._timestamp)')} AS _inserted_at
           FROM ${person} AS p
           WHERE p.team_id = {team:Int64} AND p.id IN (SELECT id FROM ${person} WHERE ${changed})
             ${after ? 'AND p.id > {after:UUID}' : ''}
           GROUP BY p.team_id, p.id ORDER BY p.id LIMIT {limit:UInt32}`,
          { params: { ...params, limit: pageRows, ...(after && { after }) }, signal },
        );
        if (rows.length === 0) return;
        after = rows[rows.length - 1]!.person_id as string;
        const ids = await distinctIds(
          store,
          teamId,
          rows.map((r) => r.person_id as string),
          signal,
        );
        for (const row of rows) {
          row.is_identified = Number(row.is_identified) === 1;
          row.is_deleted = Number(row.is_deleted) === 1;
          row.distinct_ids = JSON.stringify(ids.get(row.person_id as string) ?? []);
        }
        yield rows;
        if (rows.length < pageRows) return;
      }
    },
  };
}

async function distinctIds(store: EventsStore, teamId: number, personIds: string[], signal: AbortSignal) {
  const rows = await store.query<{ pid: string; ids: string[] }>(
    `SELECT toString(person_id) AS pid, groupArray(distinct_id) AS ids FROM (
       SELECT d.distinct_id AS distinct_id, argMax(d.person_id, d.version) AS person_id,
         argMax(d.is_deleted, d.version) AS deleted
       FROM ${store.table('person_distinct_id2')} AS d WHERE d.team_id = {team:Int64} GROUP BY d.distinct_id
     ) WHERE deleted = 0 AND person_id IN {ids:Array(UUID)} GROUP BY person_id`,
    { params: { team: teamId, ids: personIds }, signal },
  );
  return new Map(rows.map((r) => [r.pid, r.ids]));
}
