import type { EventsStore } from '../../store/events/store.js';
import type { RecordingOrder } from './filter-types.js';

/**
 * One recording per row: `session_replay_events` merged per session. Shared by the search (which
 * reads only what its filters and order need; ClickHouse drops the unused aggregates) and the
 * details of one page.
 */
export interface RecordingRow {
  session_id: string;
  distinct_id: string;
  start_time: string;
  end_time: string;
  duration: number;
  active_seconds: number;
  inactive_seconds: number;
  click_count: number;
  keypress_count: number;
  mouse_activity_count: number;
  console_log_count: number;
  console_warn_count: number;
  console_error_count: number;
  start_url: string;
  snapshot_source: string;
  last_seen: string;
}

export const ORDER_COLUMN: Record<RecordingOrder, string> = {
  start_time: 'start_time',
  duration: 'duration',
  recording_duration: 'duration',
  active_seconds: 'active_seconds',
  inactive_seconds: 'inactive_seconds',
  console_error_count: 'console_error_count',
  click_count: 'click_count',
  keypress_count: 'keypress_count',
  mouse_activity_count: 'mouse_activity_count',
};

const SUMS = [
  'click_count',
  'keypress_count',
  'mouse_activity_count',
  'console_log_count',
  'console_warn_count',
  'console_error_count',
];

/** `SELECT … FROM session_replay_events WHERE … GROUP BY session_id HAVING …`, for a subquery. */
export function recordingsSql(
  store: EventsStore,
  where: string[],
  having: string[],
  options: { urls: boolean },
): string {
  // Merging every URL of every recording is costly; only a visited-page filter needs them.
  const urls = options.urls ? ', groupUniqArrayArray(all_urls) AS all_urls' : '';
  return `SELECT session_id, any(distinct_id) AS distinct_id,
    min(min_first_timestamp) AS start_time, max(max_last_timestamp) AS end_time,
    dateDiff('second', start_time, end_time) AS duration,
    toInt64(round(sum(active_milliseconds) / 1000)) AS active_seconds,
    greatest(duration - active_seconds, 0) AS inactive_seconds,
    ${SUMS.map((c) => `sum(${c}) AS ${c}`).join(', ')},
    argMinMerge(first_url) AS start_url${urls},
    any(snapshot_source) AS snapshot_source, max(_timestamp) AS last_seen
  FROM ${store.table('session_replay_events')}
  WHERE ${where.join(' AND ')}
  GROUP BY session_id
  HAVING ${having.join(' AND ')}`;
}

/** Latest person properties per distinct id (persons and their ids are versioned rows). */
export function personsSql(store: EventsStore, team: string): string {
  return `SELECT pdi.distinct_id AS distinct_id, pdi.person_id AS person_id, p.properties AS person_properties
FROM (SELECT distinct_id, argMax(person_id, version) AS person_id FROM ${store.table('person_distinct_id2')}
      WHERE team_id = ${team} GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) AS pdi
INNER JOIN (SELECT id, argMax(properties, version) AS properties FROM ${store.table('person')}
      WHERE team_id = ${team} GROUP BY id HAVING argMax(is_deleted, version) = 0) AS p ON p.id = pdi.person_id`;
}
