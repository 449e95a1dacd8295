/**
 * The insight editor's form and its two-way mapping to PostHog's query nodes. The node is what runs,
 * what is saved and what the URL carries, so a reload, a shared link and a saved insight all reopen
 * the same form.
 */

export const KINDS = ['Trends', 'Funnels', 'Retention', 'Lifecycle', 'Stickiness', 'Paths'] as const;
export type Kind = (typeof KINDS)[number];

export const MATHS = {
  total: 'Total count',
  dau: 'Unique users (DAU)',
  weekly_active: 'Weekly active users',
  monthly_active: 'Monthly active users',
  unique_session: 'Unique sessions',
  sum: 'Sum of a property',
  avg: 'Average of a property',
  min: 'Minimum of a property',
  max: 'Maximum of a property',
  median: 'Median of a property',
  p90: '90th percentile of a property',
  p95: '95th percentile of a property',
  p99: '99th percentile of a property',
};
export type MathKey = keyof typeof MATHS;
/** Maths that aggregate a numeric property (`math_property`) rather than count. */
export const PROPERTY_MATHS = new Set<string>(['sum', 'avg', 'min', 'max', 'median', 'p90', 'p95', 'p99']);

export const RANGES = {
  '-24h': 'Last 24 hours',
  '-7d': 'Last 7 days',
  '-14d': 'Last 14 days',
  '-30d': 'Last 30 days',
  '-90d': 'Last 90 days',
  '-180d': 'Last 180 days',
  all: 'All time',
};
export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;

/** PostHog's property operators, in the words its filter menu uses. */
export const OPERATORS = {
  exact: '= equals',
  is_not: '≠ does not equal',
  icontains: '∋ contains',
  not_icontains: '∌ does not contain',
  regex: '~ matches regex',
  not_regex: '≁ does not match regex',
  gt: '> greater than',
  lt: '< less than',
  is_set: '✓ is set',
  is_not_set: '✕ is not set',
};
export type Operator = keyof typeof OPERATORS;
/** Operators that take no value. */
export const VALUELESS = new Set<string>(['is_set', 'is_not_set']);

export const BREAKDOWN_TYPES = {
  event: 'event property',
  person: 'person property',
  hogql: 'HogQL expression',
  cohort: 'cohort',
};
export type BreakdownType = keyof typeof BREAKDOWN_TYPES;

export interface PropertyFilter {
  key: string;
  /** `cohort`: key `id`, value the cohort id, operator `exact` (in) or `is_not` (not in). */
  type: 'event' | 'person' | 'cohort';
  operator: Operator;
  value: string;
  /** A cohort's name for its chip (not sent; after a reload the chip shows the id). */
  name?: string;
}

export interface Series {
  event: string;
  math: MathKey;
  mathProperty?: string;
  properties?: PropertyFilter[];
}

export interface InsightForm {
  kind: Kind;
  series: Series[];
  dateFrom: keyof typeof RANGES;
  interval: (typeof INTERVALS)[number];
  breakdown: string;
  breakdownType?: BreakdownType;
  /** Filters for the whole insight (the node's `properties`). */
  properties?: PropertyFilter[];
  /** Leave out events of the project's test accounts (Settings → Project). */
  filterTestAccounts?: boolean;
}

export const DEFAULT_FORM: InsightForm = {
  kind: 'Trends',
  series: [{ event: '$pageview', math: 'total' }],
  dateFrom: '-7d',
  interval: 'day',
  breakdown: '',
};

/** A filter as PostHog's frontend sends it: lists for (in)equality, numbers for gt/lt. */
export function toPropertyFilter(f: PropertyFilter): Record<string, unknown> {
  if (f.type === 'cohort')
    return {
      key: 'id',
      type: 'cohort',
      operator: f.operator === 'is_not' ? 'not_in' : 'in',
      value: Number(f.value),
    };
  const base = { key: f.key, type: f.type, operator: f.operator };
  if (VALUELESS.has(f.operator)) return { ...base, value: f.operator };
  if (f.operator === 'exact' || f.operator === 'is_not') return { ...base, value: [f.value] };
  if (
    (f.operator === 'gt' || f.operator === 'lt') &&
    f.value.trim() !== '' &&
    Number.isFinite(Number(f.value))
  )
    return { ...base, value: Number(f.value) };
  return { ...base, value: f.value };
}

/** A saved or linked filter back into the form; kinds the form does not edit are dropped. */
export function fromPropertyFilter(raw: unknown): PropertyFilter | null {
  const f = raw as { key?: unknown; type?: unknown; operator?: unknown; value?: unknown } | null;
  if (f?.type === 'cohort' && (typeof f.value === 'number' || typeof f.value === 'string'))
    return {
      key: 'id',
      type: 'cohort',
      operator: f.operator === 'not_in' ? 'is_not' : 'exact',
      value: String(f.value),
    };
  if (!f || typeof f.key !== 'string' || (f.type !== 'event' && f.type !== 'person')) return null;
  const operator = (
    typeof f.operator === 'string' && f.operator in OPERATORS ? f.operator : 'exact'
  ) as Operator;
  const value = Array.isArray(f.value)
    ? f.value.map(String).join(', ')
    : f.value == null
      ? ''
      : String(f.value);
  return { key: f.key, type: f.type, operator, value: VALUELESS.has(operator) ? '' : value };
}

const filtersOf = (raw: unknown): PropertyFilter[] =>
  Array.isArray(raw) ? raw.map(fromPropertyFilter).filter((f): f is PropertyFilter => f !== null) : [];
const withFilters = (list: PropertyFilter[] | undefined) =>
  list && list.length > 0 ? { properties: list.map(toPropertyFilter) } : {};

function node(s: Series, withMath: boolean) {
  const math =
    withMath && s.math !== 'total'
      ? {
          math: s.math,
          ...(PROPERTY_MATHS.has(s.math) && s.mathProperty ? { math_property: s.mathProperty } : {}),
        }
      : {};
  return {
    kind: 'EventsNode',
    event: s.event === '' ? null : s.event,
    name: s.event === '' ? 'All events' : s.event,
    ...math,
    ...withFilters(s.properties),
  };
}

/** The console's kind for a query node (`TrendsQuery` → Trends), or null for other nodes. */
export function kindOf(query: { kind?: string; source?: { kind?: string } } | null | undefined): Kind | null {
  const source = query?.kind === 'InsightVizNode' ? query.source : query;
  const name = source?.kind?.replace(/Query$/, '');
  return KINDS.find((k) => k === name) ?? null;
}

/** A saved query back into the form, for the kinds the form builds (fields it lacks are dropped). */
export function fromQuery(query: Record<string, unknown>): InsightForm | null {
  const source = (query.kind === 'InsightVizNode' ? query.source : query) as Record<string, unknown>;
  const kind = kindOf(source as { kind?: string });
  if (!kind) return null;
  type RawSeries = { event?: string | null; math?: string; math_property?: string; properties?: unknown };
  const series: Series[] = ((source.series as RawSeries[] | undefined) ?? []).map((s) => {
    const math = (s.math && s.math in MATHS ? s.math : 'total') as MathKey;
    const properties = filtersOf(s.properties);
    return {
      event: s.event ?? '',
      math,
      ...(s.math_property ? { mathProperty: s.math_property } : {}),
      ...(properties.length ? { properties } : {}),
    };
  });
  const retention = source.retentionFilter as
    | { targetEntity?: { id?: string }; returningEntity?: { id?: string }; period?: string }
    | undefined;
  if (retention) {
    series.push({ event: retention.targetEntity?.id ?? '$pageview', math: 'total' });
    series.push({ event: retention.returningEntity?.id ?? '$pageview', math: 'total' });
  }
  const dateFrom = String((source.dateRange as { date_from?: string } | undefined)?.date_from ?? '-7d');
  const interval = String(retention?.period?.toLowerCase() ?? source.interval ?? 'day');
  const breakdown = source.breakdownFilter as { breakdown?: unknown; breakdown_type?: string } | undefined;
  const breakdownType = (
    breakdown?.breakdown_type && breakdown.breakdown_type in BREAKDOWN_TYPES
      ? breakdown.breakdown_type
      : 'event'
  ) as BreakdownType;
  const properties = filtersOf(source.properties);
  return {
    kind,
    series: series.length > 0 ? series : DEFAULT_FORM.series,
    dateFrom: (dateFrom in RANGES ? dateFrom : '-7d') as InsightForm['dateFrom'],
    interval: (INTERVALS as readonly string[]).includes(interval)
      ? (interval as InsightForm['interval'])
      : 'day',
    // A cohort breakdown's ids are kept as "3,5" (the query takes a list).
    breakdown: Array.isArray(breakdown?.breakdown)
      ? breakdown.breakdown.map(String).join(',')
      : typeof breakdown?.breakdown === 'string' || typeof breakdown?.breakdown === 'number'
        ? String(breakdown.breakdown)
        : '',
    ...(breakdownType !== 'event' ? { breakdownType } : {}),
    ...(properties.length ? { properties } : {}),
    filterTestAccounts: source.filterTestAccounts === true,
  };
}

/** The form as PostHog's query node; the same node is what gets saved. */
export function toQuery(form: InsightForm): Record<string, unknown> {
  // Every insight kind takes the flag and the insight-wide filters.
  const query = { ...queryOf(form), ...withFilters(form.properties) };
  return form.filterTestAccounts ? { ...query, filterTestAccounts: true } : query;
}

/** The breakdown as the query takes it: cohort ids as numbers ("all" kept), else the text. */
function breakdownOf(text: string, type: BreakdownType): string | Array<number | string> {
  if (type !== 'cohort') return text;
  return text
    .split(',')
    .filter(Boolean)
    .map((v) => (v === 'all' ? v : Number(v)));
}

function queryOf(form: InsightForm): Record<string, unknown> {
  const dateRange = { date_from: form.dateFrom };
  const type = form.breakdownType ?? 'event';
  const breakdownFilter = form.breakdown
    ? { breakdownFilter: { breakdown: breakdownOf(form.breakdown, type), breakdown_type: type } }
    : {};
  switch (form.kind) {
    case 'Trends':
      return {
        kind: 'TrendsQuery',
        series: form.series.map((s) => node(s, true)),
        dateRange,
        interval: form.interval,
        ...breakdownFilter,
      };
    case 'Funnels':
      return {
        kind: 'FunnelsQuery',
        series: form.series.map((s) => node(s, false)),
        dateRange,
        funnelsFilter: { funnelVizType: 'steps' },
        ...breakdownFilter,
      };
    case 'Retention': {
      const [target, returning] = [
        form.series[0]?.event || '$pageview',
        form.series[1]?.event || form.series[0]?.event || '$pageview',
      ];
      const period = `${form.interval[0]?.toUpperCase()}${form.interval.slice(1)}`;
      return {
        kind: 'RetentionQuery',
        dateRange,
        retentionFilter: {
          period,
          // Cohorts start in the range's first period (PostHog's retention since 2025); this is
          // how many periods each cohort is followed for.
          totalIntervals: 8,
          targetEntity: { id: target, type: 'events' },
          returningEntity: { id: returning, type: 'events' },
        },
      };
    }
    case 'Lifecycle':
      return {
        kind: 'LifecycleQuery',
        series: [node(form.series[0] ?? DEFAULT_FORM.series[0]!, false)],
        dateRange,
        interval: form.interval,
      };
    case 'Stickiness':
      return {
        kind: 'StickinessQuery',
        series: form.series.map((s) => node(s, false)),
        dateRange,
        interval: form.interval,
      };
    case 'Paths':
      return {
        kind: 'PathsQuery',
        dateRange,
        pathsFilter: { includeEventTypes: ['$pageview'], stepLimit: 5, edgeLimit: 50 },
      };
  }
}

/** The form's URL: the query node in `q`, as PostHog links carry a query. */
export function formUrl(path: string, form: InsightForm): string {
  return `${path}?q=${encodeURIComponent(JSON.stringify(toQuery(form)))}`;
}

/** The form a URL carries, or null when it carries none (or one the form cannot read). */
export function formFromUrl(search: string): InsightForm | null {
  const q = new URLSearchParams(search).get('q');
  if (!q) return null;
  try {
    const parsed = JSON.parse(q) as unknown;
    return parsed && typeof parsed === 'object' ? fromQuery(parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
