import { DateTime } from 'luxon';
import type { TrendInterval } from '../../time/intervals.js';
import { formatInZone } from '../../time/intervals.js';
import { zoneOf } from '../../time/relative-date.js';
import { type EventsSeries, seriesAction } from './node.js';
import { num, type Period } from './scope.js';

/** One entry of `results`, in PostHog's build_series_response shape. */
export interface SeriesResult {
  data: number[];
  labels: string[];
  days: string[];
  count: number;
  label: string;
  filter: Record<string, unknown>;
  action: Record<string, unknown> | null;
  order: number;
  /** A string for one breakdown, a list (one value per breakdown) for `breakdowns`. */
  breakdown_value?: string | string[] | number;
  compare?: boolean;
  compare_label?: 'current' | 'previous';
  aggregated_value?: number;
}

const short = (i: TrendInterval) => i === 'hour' || i === 'minute';

/** `days` (`YYYY-MM-DD`, plus time for hour/minute) and `labels` (`9-Jan-2020`, `9-Jan 13:00`). */
export function axis(period: Period, timezone: string): { days: string[]; labels: string[]; keys: string[] } {
  const zone = zoneOf(timezone);
  const at = period.buckets.map((b) => DateTime.fromJSDate(b, { zone }));
  return {
    keys: period.buckets.map((b) => formatInZone(b, timezone)),
    days: at.map((d) => d.toFormat(short(period.interval) ? 'yyyy-MM-dd HH:mm:ss' : 'yyyy-MM-dd')),
    labels: at.map((d) => d.toFormat(short(period.interval) ? 'd-LLL HH:mm' : 'd-LLL-yyyy')),
  };
}

/** Values per bucket key, zeros where the query had no row. */
export function zeroFilled(keys: string[], rows: Map<string, number>): number[] {
  return keys.map((k) => rows.get(k) ?? 0);
}

/**
 * The series' display name: an action's stored name (PostHog reads it from the action, not the
 * node), else the node's name, else the event, else "All events".
 */
export const seriesName = (s: EventsSeries): string => {
  const action = seriesAction(s);
  if (action) return action.name ?? s.name ?? `Action ${action.id}`;
  return s.name ?? s.event ?? 'All events';
};

/** PostHog's `action` entry of a series result (`type: "actions"` with the action id for actions). */
export function actionOf(s: EventsSeries, order: number, days: string[]): Record<string, unknown> {
  const action = seriesAction(s);
  return {
    days,
    id: action ? action.id : (s.event ?? null),
    type: action ? 'actions' : 'events',
    order,
    name: seriesName(s),
    custom_name: s.custom_name ?? null,
    math: s.math ?? 'total',
    math_property: s.math_property ?? null,
    math_hogql: s.math_hogql ?? null,
    math_group_type_index: s.math_group_type_index ?? null,
    properties: {},
  };
}

/** Rounds float noise from aggregates (avg of floats) the way a JSON client expects to compare. */
export const clean = (v: unknown): number => {
  const n = num(v);
  return Number.isInteger(n) ? n : Math.round(n * 1e9) / 1e9;
};

export const runningSum = (data: number[]): number[] => {
  let acc = 0;
  return data.map((v) => {
    acc += v;
    return clean(acc);
  });
};
