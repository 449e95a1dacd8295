import type { EventsStore } from '../../../store/events/store.js';
import type { ExportRow, RowSchema } from '../destinations/types.js';
import type { Model } from '../types.js';
import { eventsSource } from './events.js';
import type { PropertyFilter } from './filters.js';
import { hogqlSource } from './hogql.js';
import type { QueryScope } from './hogql-query.js';
import { personsSource } from './persons.js';
import { ROW_SCHEMAS } from './schemas.js';
import { sessionsSource } from './sessions.js';

/** `[start, end)` on the time rows reached Burrow; a null start means from the beginning. */
export interface SourceWindow {
  start: string | null;
  end: string;
}

/** A window's rows, read page by page; never more than one page in memory. */
export interface Source {
  count(): Promise<number>;
  pages(signal: AbortSignal): AsyncGenerator<ExportRow[]>;
}

export interface SourceSpec {
  model: Model;
  teamId: number;
  filters: PropertyFilter[];
  includeEvents: string[];
  excludeEvents: string[];
  eventsSince?: string | undefined;
}

export function openSource(
  store: EventsStore,
  spec: SourceSpec,
  window: SourceWindow,
  pageRows: number,
): Source {
  switch (spec.model) {
    case 'events':
      return eventsSource(store, spec, window, pageRows);
    case 'persons':
      return personsSource(store, spec.teamId, window, pageRows);
    case 'sessions':
      return sessionsSource(store, spec.teamId, window, pageRows, spec.eventsSince);
  }
}

/**
 * A run's rows and their shape: the model's fixed columns, or, for an export with a
 * `hogql_query`, the query's own columns typed from its results.
 */
export async function exportSource(
  store: EventsStore,
  exp: { model: string; teamId: number; timezone: string; hogqlQuery: string | null },
  scope: QueryScope,
  window: SourceWindow,
  pageRows: number,
): Promise<{ source: Source; schema: RowSchema }> {
  if (exp.hogqlQuery) {
    const spec = { ...scope, teamId: exp.teamId, timezone: exp.timezone, query: exp.hogqlQuery };
    const source = hogqlSource(store, spec, window, pageRows);
    return { source, schema: await source.schema() };
  }
  const model = exp.model as Model;
  const source = openSource(store, { ...scope, model, teamId: exp.teamId }, window, pageRows);
  return { source, schema: ROW_SCHEMAS[model] };
}

/** Earliest arrival time of the model's data for a team, or null when there is none. */
export async function earliestData(store: EventsStore, model: Model, teamId: number): Promise<string | null> {
  const [table, column] = {
    events: ['events', 'inserted_at'],
    persons: ['person', '_timestamp'],
    sessions: ['sessions', 'max_inserted_at'],
  }[model];
  const [row] = await store.query<{ t: string | null; n: number }>(
    `SELECT formatDateTime(min(${column}), '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC') AS t, count() AS n
     FROM ${store.table(table!)} WHERE team_id = {team:Int64}`,
    { params: { team: teamId } },
  );
  return row?.t && Number(row.n) > 0 ? new Date(row.t).toISOString() : null;
}
