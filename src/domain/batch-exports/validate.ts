import { invalidChoice, validationError } from '../../errors.js';
import { choice, text, timezone } from '../validate.js';
import { validateHogQLQuery } from './hogql.js';
import { offsetField } from './offsets.js';
import { validateFilters } from './sources/filters.js';
import {
  DESTINATION_TYPES,
  type DestinationType,
  INTERVALS,
  KNOWN_DESTINATION_TYPES,
  MODELS,
} from './types.js';

/** The writable fields, as the API hands them over (types already checked by the route schema). */
export interface ExportInput {
  name?: string;
  model?: string | null;
  destination?: { type?: string; config?: Record<string, unknown> };
  interval?: string;
  paused?: boolean;
  start_at?: string | null;
  end_at?: string | null;
  hogql_query?: string | null;
  /** The spec's neutral name for `hogql_query`. */
  dialect_query?: string | null;
  filters?: unknown;
  timezone?: string | null;
  last_paused_at?: string | null;
  offset_day?: number | null;
  offset_hour?: number | null;
}

const required = (attr: string) => validationError('This field is required.', attr, 'required');

const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** DRF DateTimeField: ISO 8601; a time without offset is read as UTC. */
export function datetime(value: string | null | undefined, attr: string): string | null | undefined {
  if (value === null || value === undefined) return value;
  const date = DATETIME.test(value)
    ? new Date(/[Zz]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`)
    : null;
  if (!date || Number.isNaN(date.getTime())) {
    throw validationError(
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      attr,
      'invalid',
    );
  }
  return date.toISOString();
}

export function destinationType(value: string | undefined): DestinationType {
  if (value === undefined) throw required('destination__type');
  if (!KNOWN_DESTINATION_TYPES.includes(value)) {
    throw invalidChoice(value, DESTINATION_TYPES, 'destination__type');
  }
  if (!DESTINATION_TYPES.includes(value as DestinationType)) {
    throw validationError(
      `The ${value} destination is not supported by this server. Supported destinations: ${DESTINATION_TYPES.join(', ')}.`,
      'destination',
    );
  }
  return value as DestinationType;
}

/** Field-level checks that need no stored state; `creating` makes name, destination and interval required. */
export function checkFields(input: ExportInput, creating: boolean) {
  if (creating) {
    if (input.name === undefined) throw required('name');
    if (input.destination === undefined) throw required('destination');
    if (input.interval === undefined) throw required('interval');
  }
  const query = input.hogql_query !== undefined ? input.hogql_query : input.dialect_query;
  const out = {
    name: input.name === undefined ? undefined : text(input.name, 'name', 10_000),
    model:
      input.model === undefined
        ? undefined
        : choice(input.model ?? 'events', MODELS as readonly string[], 'model'),
    interval:
      input.interval === undefined
        ? undefined
        : choice(input.interval, INTERVALS as readonly string[], 'interval'),
    timezone: input.timezone === undefined ? undefined : timezone(input.timezone ?? 'UTC'),
    startAt: datetime(input.start_at, 'start_at'),
    endAt: datetime(input.end_at, 'end_at'),
    lastPausedAt: datetime(input.last_paused_at, 'last_paused_at'),
    filters: input.filters === undefined ? undefined : validateFilters(input.filters),
    hogql: query === undefined ? undefined : validateHogQLQuery(query),
    offsetDay: offsetField(input.offset_day, 'offset_day', 6),
    offsetHour: offsetField(input.offset_hour, 'offset_hour', 23),
  };
  if (out.startAt && out.endAt && out.endAt <= out.startAt) {
    throw validationError("'end_at' must be after 'start_at'.", 'end_at');
  }
  return out;
}
