import { DateTime } from 'luxon';
import { ApiError } from '../../errors.js';
import type { AnyProperties } from '../../hogql/property-filters.js';
import { resolvedAction } from '../actions/resolve.js';
import type { QueryNode } from '../query/kinds.js';
import { optionalObject, optionalProperties } from '../query/node-checks.js';
import { addIntervals, startOfInterval, type WeekStartDay } from '../time/intervals.js';
import { parseDate, zoneOf } from '../time/relative-date.js';
import type { EntityNode } from './entities.js';

export type RetentionPeriod = 'hour' | 'day' | 'week' | 'month';

/** A RetentionQuery after validation, with PostHog's defaults. */
export interface RetentionSpec {
  firstTime: boolean;
  period: RetentionPeriod;
  periodName: string;
  totalIntervals: number;
  target: EntityNode;
  returning: EntityNode;
  cumulative: boolean;
  properties: AnyProperties;
  breakdown: { type: 'event' | 'person'; property: string; limit: number } | null;
}

const PERIODS: Record<string, RetentionPeriod> = { Hour: 'hour', Day: 'day', Week: 'week', Month: 'month' };
const MAX_INTERVALS = 500;

const bad = (attr: string, detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

/**
 * Retention entities are `{id, type, name}` (newer clients also send EventsNode-like fields);
 * `type: "actions"` (or an ActionsNode) names an action, resolved before the query was checked.
 */
function entity(raw: unknown, attr: string): EntityNode {
  if (raw === undefined || raw === null) return { kind: 'EventsNode', event: '$pageview', name: '$pageview' };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw bad(attr, `${attr} must be an object`);
  const e = raw as Record<string, unknown>;
  if (e.properties !== undefined && e.properties !== null && typeof e.properties !== 'object')
    throw bad(attr, `${attr}.properties must be a list of property filters`);
  if (e.type === 'actions' || e.kind === 'ActionsNode') {
    const action = resolvedAction(e, attr);
    return {
      kind: 'ActionsNode',
      event: null,
      action,
      name: typeof e.name === 'string' ? e.name : action.name,
      properties: (e.properties as AnyProperties) ?? null,
    };
  }
  if (e.type !== undefined && e.type !== null && e.type !== 'events')
    throw bad(attr, `${attr}.type must be "events" or "actions"`);
  const id = e.id ?? e.event ?? null;
  if (id !== null && typeof id !== 'string') throw bad(attr, `${attr}.id must be an event name`);
  if (e.properties !== undefined && e.properties !== null && typeof e.properties !== 'object')
    throw bad(attr, `${attr}.properties must be a list of property filters`);
  return {
    kind: 'EventsNode',
    event: id || null,
    name: typeof e.name === 'string' ? e.name : (id as string | null),
    properties: (e.properties as AnyProperties) ?? null,
  };
}

export function retentionSpec(node: QueryNode): RetentionSpec {
  const filter = optionalObject(node, 'retentionFilter');
  if (!filter) throw bad('retentionFilter', 'retentionFilter is required');
  optionalProperties(node, 'properties');
  const periodName = (filter.period as string | undefined) ?? 'Day';
  const period = PERIODS[periodName];
  if (!period) throw bad('period', `period must be one of: ${Object.keys(PERIODS).join(', ')}`);
  const total = filter.totalIntervals ?? 8;
  if (!Number.isInteger(total) || (total as number) < 1 || (total as number) > MAX_INTERVALS)
    throw bad('totalIntervals', `totalIntervals must be an integer between 1 and ${MAX_INTERVALS}`);
  const type = filter.retentionType ?? 'retention_recurring';
  if (!['retention_first_time', 'retention_recurring'].includes(type as string))
    throw bad('retentionType', 'retentionType must be retention_first_time or retention_recurring');
  if ((filter.minimumOccurrences ?? 1) !== 1)
    throw bad('minimumOccurrences', 'minimumOccurrences other than 1 is not supported yet.');
  if ((filter.timeWindowMode ?? 'strict_calendar_dates') !== 'strict_calendar_dates')
    throw bad('timeWindowMode', 'Only strict_calendar_dates retention windows are supported yet.');
  if (node.aggregation_group_type_index !== undefined && node.aggregation_group_type_index !== null)
    throw bad('aggregation_group_type_index', 'Retention by groups is not supported yet.');
  return {
    firstTime: type === 'retention_first_time',
    period,
    periodName,
    totalIntervals: total as number,
    target: entity(filter.targetEntity, 'targetEntity'),
    returning: entity(filter.returningEntity, 'returningEntity'),
    cumulative: filter.cumulative === true,
    properties: node.properties as AnyProperties,
    breakdown: breakdownOf(node),
  };
}

function breakdownOf(node: QueryNode): RetentionSpec['breakdown'] {
  const b = optionalObject(node, 'breakdownFilter');
  if (!b || b.breakdown === undefined || b.breakdown === null) return null;
  const type = b.breakdown_type ?? 'event';
  if (type !== 'event' && type !== 'person')
    throw bad('breakdownFilter', `Retention breakdowns by ${String(type)} are not supported yet.`);
  const property = Array.isArray(b.breakdown) && b.breakdown.length === 1 ? b.breakdown[0] : b.breakdown;
  if (typeof property !== 'string' || !property)
    throw bad('breakdownFilter', 'breakdown must name one property');
  const limit = b.breakdown_limit ?? 25;
  if (!Number.isInteger(limit) || (limit as number) < 1)
    throw bad('breakdownFilter', 'breakdown_limit must be a positive integer');
  return { type, property, limit: limit as number };
}

/**
 * The cohort starts, in the project timezone, plus the end of the last cohort. The last cohort is
 * the period containing date_to (default now). With a date_from (PostHog's retention since its
 * January 2025 date range update) the first cohort is the period containing it, and
 * `totalIntervals` only bounds how many periods each cohort is followed for; without one (older
 * saved queries), `totalIntervals` periods are counted back from date_to.
 */
export function cohortStarts(
  node: QueryNode,
  spec: RetentionSpec,
  ctx: { timezone: string; now: Date; weekStartDay: WeekStartDay },
): Date[] {
  const range = node.dateRange as { date_from?: string | null; date_to?: string | null } | null | undefined;
  const at = (text: string, attr: string) =>
    parseDate(text, { timezone: ctx.timezone, now: ctx.now, attr }).at.toJSDate();
  const to = range?.date_to ? at(range.date_to, 'date_to') : ctx.now;
  const last = startOfInterval(to, spec.period, ctx.timezone, ctx.weekStartDay);
  let count = spec.totalIntervals;
  if (range?.date_from && range.date_from !== 'all') {
    const first = startOfInterval(
      at(range.date_from, 'date_from'),
      spec.period,
      ctx.timezone,
      ctx.weekStartDay,
    );
    count = 1;
    while (count <= MAX_INTERVALS && addIntervals(first, spec.period, count, ctx.timezone) <= last) count++;
    if (count > MAX_INTERVALS)
      throw bad(
        'dateRange',
        `The date range holds more than ${MAX_INTERVALS} ${spec.period}s: choose a shorter range or a longer period.`,
      );
  }
  return Array.from({ length: count + 1 }, (_, i) =>
    addIntervals(last, spec.period, i - count + 1, ctx.timezone),
  );
}

/** A cohort date as PostHog prints datetimes: ISO with the zone's offset, `Z` for UTC. */
export function isoInZone(at: Date, timezone: string): string {
  const text =
    DateTime.fromJSDate(at, { zone: zoneOf(timezone) }).toISO({ suppressMilliseconds: true }) ?? '';
  return text.replace(/\+00:00$/, 'Z');
}
