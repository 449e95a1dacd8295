import type { CohortLookup } from '../../hogql/cohorts.js';
import type { AnyProperties } from '../../hogql/property-filters.js';
import type { PropertyTypeLookup } from '../../hogql/property-types.js';
import type { EventsStore } from '../../store/events/store.js';
import type { MetaDb } from '../../store/meta/db.js';

/** What a query runner needs about the project and the engine. */
export interface RunnerContext {
  teamId: number;
  timezone: string;
  weekStartDay: 0 | 1;
  events: EventsStore;
  now: Date;
  /** Background queries get the longer engine time limit. */
  async: boolean;
  marker?: string;
  signal?: AbortSignal;
  /** The team's test-account filters, applied when a query sets `filterTestAccounts`. */
  testAccountFilters?: AnyProperties;
  /** The project's property types (definitions), so typed properties compile converted. */
  propertyType?: PropertyTypeLookup | undefined;
  /** The project's cohorts, for `IN COHORT` and cohort filters. */
  cohorts?: CohortLookup | undefined;
  /** The project's default modifiers (`team.modifiers`): they fill keys a query does not set. */
  teamModifiers?: Record<string, unknown> | undefined;
  /** The project's retention cut for events (engine time, UTC); none: everything is kept. */
  eventsSince?: string | undefined;
  /** The project's `path_cleaning_filters` setting as stored (web analytics' `doPathCleaning`). */
  pathCleaningFilters?: unknown;
  /** The metadata store, for kinds whose answer joins it (ErrorTrackingQuery's issues). */
  meta?: MetaDb | undefined;
}

/** The result part of a query response (cache fields are added around it). */
export type QueryResult = Record<string, unknown> & { results: unknown };
