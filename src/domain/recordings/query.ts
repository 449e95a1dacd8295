import { validationError } from '../../errors.js';
import { formatTimestamp } from '../../store/events/insert.js';
import type { EventsStore } from '../../store/events/store.js';
import type { FilterNode, RecordingOrder } from './filter-types.js';
import { ORDER_COLUMN, personsSql, type RecordingRow, recordingsSql } from './query-columns.js';
import { needsPerson, needsUrls, Params, whereSql } from './query-where.js';

export type { RecordingRow } from './query-columns.js';

/**
 * Recording lists as parameterised ClickHouse SQL through the EventsStore, always for one team.
 * Kept in these `query*` modules so that it can move onto the HogQL compiler later.
 */
export interface RecordingSearch {
  teamId: number;
  /** The project's timezone (HogQL parts of filters print with it); UTC when not given. */
  timezone?: string;
  from: Date | null;
  to: Date | null;
  where: FilterNode;
  order: RecordingOrder;
  direction: 'ASC' | 'DESC';
  sessionIds?: string[];
  distinctIds?: string[];
  personUuid?: string;
  excludeIds: string[];
  limit: number;
  offset: number;
}

const DAY_MS = 86_400_000;
const TS = "DateTime64(6, 'UTC')";
const ts = (d: Date) => formatTimestamp(d);

/** The session ids of one page of matching recordings, in order. */
export function searchSql(
  store: EventsStore,
  s: RecordingSearch,
): { sql: string; params: Record<string, unknown> } {
  const params = new Params();
  const team = params.add(s.teamId, 'Int64');
  const pre = [`team_id = ${team}`];
  // posthog-js ends a session after 24 hours, so rows older than a day before the range cannot
  // belong to a recording that starts inside it.
  if (s.from) pre.push(`min_first_timestamp >= ${params.add(ts(new Date(s.from.getTime() - DAY_MS)), TS)}`);
  if (s.sessionIds) pre.push(`session_id IN ${params.add(s.sessionIds, 'Array(String)')}`);
  if (s.excludeIds.length > 0) pre.push(`session_id NOT IN ${params.add(s.excludeIds, 'Array(String)')}`);
  const having = ['1'];
  if (s.from) having.push(`start_time >= ${params.add(ts(s.from), TS)}`);
  if (s.to) having.push(`start_time <= ${params.add(ts(s.to), TS)}`);
  if (s.distinctIds) having.push(`distinct_id IN ${params.add(s.distinctIds, 'Array(String)')}`);
  const ctx = {
    store,
    params,
    team,
    teamId: s.teamId,
    timezone: s.timezone ?? 'UTC',
    eventsFrom: s.from ? ts(new Date(s.from.getTime() - DAY_MS)) : null,
    eventsTo: s.to ? ts(new Date(s.to.getTime() + DAY_MS)) : null,
  };
  const where = [whereSql(s.where, ctx)];
  const joinPerson = needsPerson(s.where) || s.personUuid !== undefined;
  if (s.personUuid !== undefined)
    where.push(`toString(pp.person_id) = ${params.add(s.personUuid, 'String')}`);
  const sql = `SELECT r.session_id AS session_id
FROM (${recordingsSql(store, pre, having, { urls: needsUrls(s.where) })}) AS r
${joinPerson ? `LEFT JOIN (${personsSql(store, team)}) AS pp ON pp.distinct_id = r.distinct_id` : ''}
WHERE ${where.join(' AND ')}
ORDER BY r.${ORDER_COLUMN[s.order]} ${s.direction}, r.session_id ${s.direction}
LIMIT ${params.add(s.limit, 'UInt32')} OFFSET ${params.add(s.offset, 'UInt32')}`;
  return { sql, params: params.values };
}

async function run<T>(store: EventsStore, sql: string, params: Record<string, unknown>): Promise<T[]> {
  try {
    return await store.query<T>(sql, { params });
  } catch (error) {
    const e = error as { type?: string; message?: string };
    if (e.type === 'CANNOT_COMPILE_REGEXP' || /cannot compile re2/i.test(e.message ?? '')) {
      throw validationError('A regular expression in the filters is not valid.', null);
    }
    throw error;
  }
}

/** Ids first, details for those alone: the costly aggregates run for one page, not every match. */
export async function searchSessionIds(store: EventsStore, s: RecordingSearch): Promise<string[]> {
  const { sql, params } = searchSql(store, s);
  return (await run<{ session_id: string }>(store, sql, params)).map((r) => r.session_id);
}

/** Metadata of the given recordings, in the order given (missing ones left out). */
export async function recordingsByIds(
  store: EventsStore,
  teamId: number,
  ids: string[],
): Promise<RecordingRow[]> {
  if (ids.length === 0) return [];
  const params = { team: teamId, ids };
  const where = ['team_id = {team:Int64}', 'session_id IN {ids:Array(String)}'];
  const rows = await run<RecordingRow>(store, recordingsSql(store, where, ['1'], { urls: false }), params);
  const byId = new Map(rows.map((r) => [r.session_id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
