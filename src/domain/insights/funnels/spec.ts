import { ApiError } from '../../../errors.js';
import type { AnyProperties } from '../../../hogql/property-filters.js';
import type { QueryNode } from '../../query/kinds.js';
import { optionalObject, optionalProperties } from '../../query/node-checks.js';
import { checkEntity, type EntityNode } from '../entities.js';
import { type ALL_USERS, checkBreakdown, cohortBreakdown } from '../trends/breakdown.js';

export type OrderType = 'ordered' | 'strict' | 'unordered';
export type VizType = 'steps' | 'time_to_convert' | 'trends';
export type Attribution = 'first_touch' | 'last_touch' | 'all_events' | 'step';
export type WindowUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month';

export interface Exclusion {
  entity: EntityNode;
  from: number;
  to: number;
}

/** A FunnelsQuery after validation, with PostHog's defaults filled in. */
export interface FunnelSpec {
  steps: EntityNode[];
  order: OrderType;
  viz: VizType;
  window: { interval: number; unit: WindowUnit };
  exclusions: Exclusion[];
  fromStep: number;
  toStep: number;
  binCount: number | null;
  breakdown:
    | { type: 'event' | 'person'; property: string; limit: number }
    | { type: 'cohort'; property: ''; limit: number; cohorts: Array<number | typeof ALL_USERS> }
    | null;
  attribution: Attribution;
  attributionStep: number;
  aggregateBy: string | null;
}

/** Step bits share an Int64 with the event time (see events.ts). */
const MAX_STEPS = 20;
const ORDERS = ['ordered', 'strict', 'unordered'];
const VIZ = ['steps', 'time_to_convert', 'trends'];
const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month'];
const ATTRIBUTIONS = ['first_touch', 'last_touch', 'all_events', 'step'];

export const invalidFunnel = (attr: string, detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

function oneOf(value: unknown, allowed: string[], fallback: string, attr: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value))
    throw invalidFunnel(attr, `${attr} must be one of: ${allowed.join(', ')}`);
  return value;
}

function step(value: unknown, fallback: number, max: number, attr: string): number {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max)
    throw invalidFunnel(attr, `${attr} must be a step index between 0 and ${max}`);
  return value as number;
}

/** Validates a FunnelsQuery node (400 in PostHog's error shape on anything Burrow cannot run). */
export function funnelSpec(node: QueryNode): FunnelSpec {
  const series = node.series;
  if (!Array.isArray(series) || series.length < 2)
    throw invalidFunnel('series', 'Funnels require at least two steps before calculating.');
  if (series.length > MAX_STEPS)
    throw invalidFunnel('series', `Funnels can have at most ${MAX_STEPS} steps.`);
  const steps = series.map((s, i) => checkEntity(s, `series.${i}`, 'funnels'));
  for (const s of steps)
    if (s.optionalInFunnel) throw invalidFunnel('series', 'Optional funnel steps are not supported yet.');
  optionalProperties(node, 'properties');
  const filter = optionalObject(node, 'funnelsFilter') ?? {};
  const last = steps.length - 1;
  const interval = filter.funnelWindowInterval ?? 14;
  if (!Number.isInteger(interval) || (interval as number) < 1)
    throw invalidFunnel('funnelWindowInterval', 'funnelWindowInterval must be a positive integer');
  const rawExclusions = filter.exclusions ?? [];
  if (!Array.isArray(rawExclusions))
    throw invalidFunnel('exclusions', 'exclusions must be a list of EventsNodes');
  const exclusions = rawExclusions.map((raw, i) => {
    const e = checkEntity(raw, `exclusions.${i}`, 'funnels') as EntityNode & Record<string, unknown>;
    const from = step(e.funnelFromStep, 0, last, `exclusions.${i}.funnelFromStep`);
    const to = step(e.funnelToStep, last, last, `exclusions.${i}.funnelToStep`);
    if (to <= from) throw invalidFunnel('exclusions', 'Exclusion steps must span at least one funnel step.');
    return { entity: e, from, to };
  });
  const fromStep = step(filter.funnelFromStep, 0, last, 'funnelFromStep');
  const toStep = step(filter.funnelToStep, last, last, 'funnelToStep');
  if (toStep <= fromStep) throw invalidFunnel('funnelToStep', 'funnelToStep must come after funnelFromStep');
  const binCount = filter.binCount ?? null;
  if (
    binCount !== null &&
    (!Number.isInteger(binCount) || (binCount as number) < 1 || (binCount as number) > 90)
  )
    throw invalidFunnel('binCount', 'binCount must be an integer between 1 and 90');
  const aggregateBy = filter.funnelAggregateByHogQL;
  if (aggregateBy !== undefined && aggregateBy !== null && typeof aggregateBy !== 'string')
    throw invalidFunnel('funnelAggregateByHogQL', 'funnelAggregateByHogQL must be a string');
  if (node.aggregation_group_type_index !== undefined && node.aggregation_group_type_index !== null)
    throw invalidFunnel(
      'aggregation_group_type_index',
      'Aggregating funnels by groups is not supported yet.',
    );
  const attribution = oneOf(
    filter.breakdownAttributionType,
    ATTRIBUTIONS,
    'first_touch',
    'breakdownAttributionType',
  );
  return {
    steps,
    order: oneOf(filter.funnelOrderType, ORDERS, 'ordered', 'funnelOrderType') as OrderType,
    viz: oneOf(filter.funnelVizType, VIZ, 'steps', 'funnelVizType') as VizType,
    window: {
      interval: interval as number,
      unit: oneOf(filter.funnelWindowIntervalUnit, UNITS, 'day', 'funnelWindowIntervalUnit') as WindowUnit,
    },
    exclusions,
    fromStep,
    toStep,
    binCount: binCount as number | null,
    breakdown: breakdownOf(node),
    attribution: attribution as Attribution,
    attributionStep:
      attribution === 'step'
        ? step(filter.breakdownAttributionValue, 0, last, 'breakdownAttributionValue')
        : 0,
    aggregateBy: (aggregateBy as string | undefined) || null,
  };
}

function breakdownOf(node: QueryNode): FunnelSpec['breakdown'] {
  const b = optionalObject(node, 'breakdownFilter');
  if (!b || b.breakdown === undefined || b.breakdown === null) return null;
  const type = b.breakdown_type ?? 'event';
  if (type === 'cohort') {
    // One funnel per cohort asked for (a person in two counts in both), as PostHog runs them.
    const checked = checkBreakdown({ breakdown_type: 'cohort', breakdown: b.breakdown });
    const cohorts = checked ? cohortBreakdown(checked) : [];
    return { type, property: '', limit: cohorts.length, cohorts };
  }
  if (type !== 'event' && type !== 'person')
    throw invalidFunnel('breakdownFilter', `Funnel breakdowns by ${String(type)} are not supported yet.`);
  const property = Array.isArray(b.breakdown) && b.breakdown.length === 1 ? b.breakdown[0] : b.breakdown;
  if (typeof property !== 'string' || !property)
    throw invalidFunnel('breakdownFilter', 'breakdown must name one property');
  const limit = b.breakdown_limit ?? 25;
  if (!Number.isInteger(limit) || (limit as number) < 1)
    throw invalidFunnel('breakdownFilter', 'breakdown_limit must be a positive integer');
  return { type, property, limit: limit as number };
}

export type { AnyProperties };
