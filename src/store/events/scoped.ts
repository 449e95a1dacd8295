import type { LaneName } from './lanes.js';
import type { EventsStore, QueryOptions } from './store.js';

/**
 * The same store with a project (and optionally a lane) preset on every read and command, for
 * code that runs many statements for one project (recordings, batch export sources): the lanes
 * then share sessions fairly between projects without each call naming its project.
 */
export function scopedEvents(store: EventsStore, scope: { teamId: number; lane?: LaneName }): EventsStore {
  const withScope = (o?: QueryOptions): QueryOptions => ({ ...scope, ...o });
  return {
    ...store,
    table: (name) => store.table(name),
    query: (sql, o) => store.query(sql, withScope(o)),
    queryRows: (sql, o) => store.queryRows(sql, withScope(o)),
    command: (sql, o) => store.command(sql, withScope(o)),
  };
}
