/**
 * Recording filters as Burrow evaluates them, whichever of PostHog's three spellings they came in
 * (playlist "universal" filters, legacy playlist filters, list query parameters): a tree of AND/OR
 * groups over leaves, plus a date range, ordering and scoping.
 */
import { BASIC_OPERATORS, type PropertyFilter } from '../../hogql/property-filters.js';
import type { ActionStep } from '../../store/meta/actions.js';

export const PROPERTY_OPERATORS = BASIC_OPERATORS;
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

export const METRIC_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'exact', 'is_not'] as const;
export type MetricOperator = (typeof METRIC_OPERATORS)[number];

export const METRICS = ['duration', 'active_seconds', 'inactive_seconds'] as const;
export type Metric = (typeof METRICS)[number];

export type ConsoleLevel = 'log' | 'warn' | 'error';

/** A condition on one property of an event or of the recording's person. */
export interface PropertyCondition {
  source: 'event' | 'person';
  key: string;
  operator: PropertyOperator;
  /** Texts to compare with (exact/is_not: any of them; contains/regex: the first). */
  values: string[];
  /** For gt/gte/lt/lte. */
  number?: number;
}

/** An action named by a filter; `steps` are filled in from the project's actions before a run. */
export interface ActionRef {
  id: number;
  /** Where the filter sits, for the 400 when the project has no such action. */
  attr: string;
  steps?: ActionStep[];
}

export type Leaf =
  /**
   * The recording's session has an event (of this name, or any; or matching the action) matching
   * every property and element filter.
   */
  | {
      kind: 'event';
      event: string | null;
      properties: PropertyCondition[];
      elements?: PropertyFilter[];
      action?: ActionRef;
    }
  /** Event property: some event of the session matches; person property: the session's person does. */
  | { kind: 'property'; condition: PropertyCondition }
  | { kind: 'metric'; metric: Metric; operator: MetricOperator; value: number }
  | { kind: 'snapshot_source'; negate: boolean; values: string[] }
  | { kind: 'visited_page'; condition: PropertyCondition }
  /** Has console output of any of these levels. */
  | { kind: 'console'; levels: ConsoleLevel[] }
  /** The session's person is (not) in the cohort; `version` is filled from the metadata store. */
  | { kind: 'cohort'; id: number; negate: boolean; version?: number | null };

export type FilterNode = Leaf | { kind: 'group'; operator: 'AND' | 'OR'; children: FilterNode[] };

export const RECORDING_ORDERS = [
  'start_time',
  'duration',
  'recording_duration',
  'active_seconds',
  'inactive_seconds',
  'console_error_count',
  'click_count',
  'keypress_count',
  'mouse_activity_count',
] as const;
export type RecordingOrder = (typeof RECORDING_ORDERS)[number];

export interface RecordingQuery {
  /** Raw date expressions (`-7d`, `2024-01-01`, `all`), resolved when the query runs. */
  dateFrom: string;
  dateTo: string | null;
  where: FilterNode;
  order: RecordingOrder;
  direction: 'ASC' | 'DESC';
  filterTestAccounts: boolean;
  sessionIds?: string[];
  personUuid?: string;
  distinctIds?: string[];
}

export const DEFAULT_DATE_FROM = '-3d';
