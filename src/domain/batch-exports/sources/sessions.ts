import type { EventsStore } from '../../../store/events/store.js';
import type { ExportRow } from '../destinations/types.js';
import { chTime } from './events.js';
import type { Source, SourceWindow } from './source.js';

const TS = (e: string) => `formatDateTime(${e}, '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC')`;

/**
 * Sessions whose latest event arrived in the window, merged from their partial rows. A session
 * that grows later is exported again by the later window (the key is `session_id`).
 */
export function sessionsSource(
  store: EventsStore,
  teamId: number,
  window: SourceWindow,
  pageRows: number,
  eventsSince?: string,
): Source {
  const sessions = store.table('sessions');
  const touched = [
    'team_id = {team:Int64}',
    ...(window.start ? ["max_inserted_at >= {start:DateTime64(6, 'UTC')}"] : []),
    "max_inserted_at < {end:DateTime64(6, 'UTC')}",
  ].join(' AND ');
  const latestInWindow = [
    ...(window.start ? ["max(s.max_inserted_at) >= {start:DateTime64(6, 'UTC')}"] : []),
    "max(s.max_inserted_at) < {end:DateTime64(6, 'UTC')}",
    // A session is gone with its last event when the project's retention cut passes it.
    ...(eventsSince ? ["max(s.max_timestamp) >= toDateTime64({since:String}, 6, 'UTC')"] : []),
  ].join(' AND ');
  const params: Record<string, unknown> = { team: teamId, end: chTime(window.end), since: eventsSince };
  if (window.start) params.start = chTime(window.start);
  const base = (extra: string) =>
    `FROM ${sessions} AS s
     WHERE s.team_id = {team:Int64} AND s.session_id IN (SELECT session_id FROM ${sessions} WHERE ${touched}) ${extra}
     GROUP BY s.team_id, s.session_id HAVING ${latestInWindow}`;
  return {
    async count() {
      const [row] = await store.query<{ n: number }>(
        `SELECT count() AS n FROM (SELECT s.session_id ${base('')})`,
        {
          params,
        },
      );
      return Number(row?.n ?? 0);
    },
    async *pages(signal) {
      let after: string | undefined;
      for (;;) {
        const rows = await store.query<ExportRow>(
          `SELECT s.team_id AS team_id, s.session_id AS session_id, any(s.distinct_id) AS distinct_id,
             ${TS('min(s.min_timestamp)')} AS start_timestamp, ${TS('max(s.max_timestamp)')} AS end_timestamp,
             toJSONString(groupUniqArrayArray(s.urls)) AS urls,
             argMinMerge(s.entry_url) AS entry_url, argMaxMerge(s.exit_url) AS exit_url,
             sum(s.pageview_count) AS pageview_count, sum(s.autocapture_count) AS autocapture_count,
             sum(s.screen_count) AS screen_count, sum(s.event_count) AS event_count,
             ${TS('max(s.max_inserted_at)')} AS _inserted_at
           ${base(after === undefined ? '' : 'AND s.session_id > {after:String}')}
           ORDER BY s.session_id LIMIT {limit:UInt32}`,
          { params: { ...params, limit: pageRows, ...(after !== undefined && { after }) }, signal },
        );
        if (rows.length === 0) return;
        after = rows[rows.length - 1]!.session_id as string;
        yield rows;
        if (rows.length < pageRows) return;
      }
    },
  };
}
