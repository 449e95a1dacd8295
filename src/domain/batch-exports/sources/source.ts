import type { EventsStore } from '../../../store/events/store.js';
import type { ExportRow } from '../destinations/types.js';
import type { Model } from '../types.js';
import { eventsSource } from './events.js';
import type { PropertyFilter } from './filters.js';
import { personsSource } from './persons.js';
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
      return sessionsSource(store, spec.teamId, window, pageRows);
  }
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
