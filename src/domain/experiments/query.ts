import { DateTime } from 'luxon';
import { notFound, validationError } from '../../errors.js';
import { and, constant, type Expr, field as fieldOf, type SelectQuery } from '../../hogql/ast.js';
import { parseExpr, parseSelect } from '../../hogql/parse.js';
import { replacePlaceholders } from '../../hogql/placeholders.js';
import { type AnyProperties, at, propertiesToExpr } from '../../hogql/property-filters.js';
import { type ExperimentRecord, experimentsState, findExperiment } from '../../store/meta/experiments.js';
import { type FeatureFlagRecord, findFeatureFlag } from '../../store/meta/feature-flags.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import { effectiveModifiers, withTeamModifiers } from '../query/hogql-runner.js';
import type { QueryNode } from '../query/kinds.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { bayesian, frequentist, type VariantStats } from './stats/compare.js';

/** PostHog's key for users exposed to more than one variant (`exclude` handling). */
export const MULTIPLE_VARIANT_KEY = '$multiple';
const MAX_DAYS = 1_000;

interface ExposureCriteria {
  filterTestAccounts?: boolean;
  exposure_config?: { kind?: string; event?: string; properties?: AnyProperties } | null;
  multiple_variant_handling?: 'exclude' | 'first_seen';
}

interface ExperimentNodeBase extends QueryNode {
  experiment_id?: number;
  modifiers?: Record<string, unknown>;
}

/** What a result needs about the experiment: its flag, variants, window and exposure criteria. */
export interface Setup {
  experiment: ExperimentRecord;
  flagKey: string;
  variants: string[];
  criteria: ExposureCriteria;
  from: DateTime | null;
  to: DateTime;
}

export const bad = (detail: string, attr: string | null) => validationError(detail, attr);

export function checkExperimentId(node: QueryNode): void {
  const id = node.experiment_id;
  if (id === undefined || id === null) throw bad('experiment_id is required', 'experiment_id');
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1)
    throw bad('experiment_id must be a positive integer', 'experiment_id');
}

function checkCriteria(raw: unknown, attr: string): void {
  if (raw === undefined || raw === null) return;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw bad(`${attr} must be an object`, attr);
  const c = raw as Record<string, unknown>;
  if (
    c.multiple_variant_handling !== undefined &&
    c.multiple_variant_handling !== null &&
    c.multiple_variant_handling !== 'exclude' &&
    c.multiple_variant_handling !== 'first_seen'
  )
    throw bad('multiple_variant_handling must be "exclude" or "first_seen"', attr);
  const cfg = c.exposure_config as Record<string, unknown> | null | undefined;
  if (cfg !== undefined && cfg !== null) {
    if (typeof cfg !== 'object' || Array.isArray(cfg)) throw bad('exposure_config must be an object', attr);
    if (cfg.event !== undefined && (typeof cfg.event !== 'string' || cfg.event === ''))
      throw bad('exposure_config.event must be an event name', attr);
    if (cfg.properties !== undefined && !Array.isArray(cfg.properties) && typeof cfg.properties !== 'object')
      throw bad('exposure_config.properties must be a list of property filters', attr);
  }
}

export async function setupOf(node: ExperimentNodeBase, ctx: RunnerContext): Promise<Setup> {
  const meta = ctx.meta;
  if (!meta) throw new Error('experiment queries need the metadata store');
  const experiment = await findExperiment(meta, ctx.teamId, Number(node.experiment_id));
  if (!experiment) throw notFound(`Experiment ${node.experiment_id} does not exist.`);
  const flag: FeatureFlagRecord | undefined = await findFeatureFlag(
    meta,
    ctx.teamId,
    experiment.featureFlagId,
  );
  if (!flag) throw notFound("The experiment's feature flag does not exist.");
  const multivariate = (flag.filters.multivariate ?? {}) as { variants?: { key?: string }[] };
  const variants = (multivariate.variants ?? [])
    .map((v) => v.key)
    .filter((k): k is string => typeof k === 'string');
  // Held-out users are their own group, `holdout-<id>`, after the flag's variants (as PostHog).
  const holdoutId = experiment.config.holdout_id;
  if (typeof holdoutId === 'number') variants.push(`holdout-${holdoutId}`);
  const criteria = (node.exposure_criteria ?? experiment.config.exposure_criteria ?? {}) as ExposureCriteria;
  const startRaw = (node.start_date as string | undefined) ?? experiment.startDate;
  const endRaw = (node.end_date as string | undefined) ?? experiment.endDate;
  const from = startRaw ? DateTime.fromISO(startRaw, { zone: 'utc' }) : null;
  const to = endRaw
    ? DateTime.fromISO(endRaw, { zone: 'utc' })
    : DateTime.fromJSDate(ctx.now, { zone: 'utc' });
  if (from && !from.isValid) throw bad('start_date is not a date', 'start_date');
  if (!to.isValid) throw bad('end_date is not a date', 'end_date');
  return { experiment, flagKey: flag.key, variants, criteria, from, to };
}

/**
 * Conditions on exposure events, as PostHog builds them: the window, the exposure event (the
 * flag's `$feature_flag_called`, variant in `$feature_flag_response`, or a custom event with the
 * variant in `$feature/<key>`), a known variant, test accounts and the custom event's properties.
 */
function exposureParts(s: Setup, ctx: RunnerContext): { variant: Expr; where: Expr } {
  const cfg = s.criteria.exposure_config;
  const custom = customExposure(s);
  const variantProp = custom ? `$feature/${s.flagKey}` : '$feature_flag_response';
  const fast = s.variants.every(plain) && plain(s.flagKey);
  const variant = fast ? rawString(variantProp) : field(['properties', variantProp]);
  // The cheap conditions first: the JSON is read only on the exposure event's rows.
  const where: Expr[] = [exprOf('event = {e}', { e: custom ?? '$feature_flag_called' })];
  if (s.from) where.push(exprOf('timestamp >= toDateTime64({t}, 3)', { t: s.from.toMillis() / 1000 }));
  where.push(exprOf('timestamp <= toDateTime64({t}, 3)', { t: s.to.toMillis() / 1000 }));
  where.push(
    fast
      ? rawIn(variantProp, s.variants)
      : exprOf('toString({v}) IN {variants}', { variants: s.variants }, { v: variant }),
  );
  if (!custom)
    where.push(
      fast ? rawIn('$feature_flag', [s.flagKey]) : exprOf('properties.$feature_flag = {k}', { k: s.flagKey }),
    );
  if (s.criteria.filterTestAccounts && ctx.testAccountFilters)
    where.push(propertiesToExpr(ctx.testAccountFilters as AnyProperties, 'events'));
  if (custom && cfg?.properties) {
    const props = at('exposure_criteria', () => propertiesToExpr(cfg.properties as AnyProperties, 'events'));
    where.push(props);
  }
  return { variant, where: andAll(where) };
}

/**
 * `properties.<key> = value` as HogQL prints it strips the raw JSON text's outer quotes with a
 * regular expression, which was a third of an experiment's time (it runs on every exposure). For
 * a value with no quote or backslash (and not `null`, which HogQL reads as NULL) the stripped text
 * equals the value exactly when the raw text is `"value"` or `value`: the same answer, compared
 * on the raw text.
 */
const plain = (value: string): boolean => value !== '' && value !== 'null' && !/["\\]/.test(value);

function rawIn(key: string, values: string[]): Expr {
  const texts = values.flatMap((v) => [`"${v}"`, v]);
  return exprOf('JSONExtractRaw(properties, {k}) IN {texts}', { k: key, texts });
}

/** The property's text once `rawIn` held: the raw text without its quotes. */
function rawString(key: string): Expr {
  return exprOf(
    "if(startsWith(JSONExtractRaw(properties, {k}), '\"'), substring(JSONExtractRaw(properties, {k}), 2, length(JSONExtractRaw(properties, {k})) - 2), JSONExtractRaw(properties, {k}))",
    { k: key },
  );
}

/** The custom exposure event, or null for the flag's `$feature_flag_called`. */
function customExposure(s: Setup): string | null {
  const event = s.criteria.exposure_config?.event;
  return event && event !== '$feature_flag_called' ? event : null;
}

const exposureEvent = (s: Setup): string => customExposure(s) ?? '$feature_flag_called';

const field = (chain: string[]): Expr => fieldOf(...chain);
const andAll = (exprs: Expr[]): Expr => (exprs.length ? and(...exprs) : constant(true));

/** An expression with its placeholders filled now (nested placeholders are not filled later). */
function exprOf(text: string, values: Record<string, unknown>, exprs: Record<string, Expr> = {}): Expr {
  return replacePlaceholders(parseExpr(text), { values, exprs });
}

/**
 * One row per exposed person: the variant (of the first exposure under `first_seen`, or
 * `$multiple` when several were seen under `exclude`) and the time of the first exposure.
 */
const EXPOSURES = `
  SELECT person_id AS entity, {variant_expr} AS variant, min(timestamp) AS first_exposure
  FROM events WHERE {where} GROUP BY entity`;

function variantExpr(s: Setup): string {
  return s.criteria.multiple_variant_handling === 'first_seen'
    ? 'argMin(toString({v}), timestamp)'
    : `if(count(DISTINCT toString({v})) > 1, '${MULTIPLE_VARIANT_KEY}', any(toString({v})))`;
}

/** The exposures subquery's text and the expressions its placeholders stand for. */
function exposuresQuery(s: Setup, ctx: RunnerContext): { text: string; exprs: Record<string, Expr> } {
  const { variant, where } = exposureParts(s, ctx);
  return { text: EXPOSURES.replace('{variant_expr}', variantExpr(s)), exprs: { v: variant, where } };
}

// ---------------------------------------------------------------------------------------------
// ExperimentExposureQuery

const DAILY = `
  SELECT toStartOfDay(first_exposure) AS day, variant, count() AS n
  FROM ({exposures}) GROUP BY day, variant ORDER BY day, variant LIMIT 5000`;

function checkExposureNode(node: QueryNode): QueryNode {
  checkExperimentId(node);
  checkCriteria(node.exposure_criteria, 'exposure_criteria');
  for (const k of ['start_date', 'end_date'] as const) {
    const v = node[k];
    if (v !== undefined && v !== null && (typeof v !== 'string' || !DateTime.fromISO(v).isValid))
      throw bad(`${k} must be an ISO date`, k);
  }
  return node;
}

async function runExposures(node: ExperimentNodeBase, ctx: RunnerContext): Promise<QueryResult> {
  const started = performance.now();
  const s = await setupOf(node, ctx);
  const dateRange = {
    date_from: s.from ? s.from.setZone(ctx.timezone).toISO() : null,
    date_to: s.experiment.endDate || node.end_date ? s.to.setZone(ctx.timezone).toISO() : null,
    explicitDate: true,
  };
  // A draft experiment has no exposures yet.
  if (!s.from) {
    return queryResponse(
      {
        kind: 'ExperimentExposureQuery',
        results: undefined,
        timeseries: [],
        total_exposures: {},
        date_range: dateRange,
      },
      { seconds: 0, modifiers: node.modifiers },
    );
  }
  const exp = exposuresQuery(s, ctx);
  const run = await runSelect(parseSelect(DAILY.replace('{exposures}', exp.text)) as SelectQuery, ctx, {
    modifiers: node.modifiers,
    exprs: exp.exprs,
  });
  const counts = new Map<string, Map<string, number>>();
  for (const [day, variant, n] of run.rows) {
    const v = String(variant);
    const m = counts.get(v) ?? new Map<string, number>();
    m.set(String(day).slice(0, 10), Number(n));
    counts.set(v, m);
  }
  // Every day of the window, for every variant seen, cumulated as PostHog draws it.
  const days: string[] = [];
  const last = s.to.setZone(ctx.timezone).startOf('day');
  for (
    let d = s.from.setZone(ctx.timezone).startOf('day');
    d <= last && days.length < MAX_DAYS;
    d = d.plus({ days: 1 })
  )
    days.push(d.toISODate() as string);
  const order = [...s.variants, MULTIPLE_VARIANT_KEY].filter((v) => counts.has(v));
  const timeseries = order.map((variant) => {
    const m = counts.get(variant) as Map<string, number>;
    let total = 0;
    return { variant, days, exposure_counts: days.map((d) => (total += m.get(d) ?? 0)) };
  });
  const total_exposures: Record<string, number> = {};
  for (const v of order)
    total_exposures[v] = [...(counts.get(v) as Map<string, number>).values()].reduce((a, b) => a + b, 0);
  return queryResponse(
    {
      kind: 'ExperimentExposureQuery',
      results: undefined,
      timeseries,
      total_exposures,
      date_range: dateRange,
    },
    { seconds: (performance.now() - started) / 1000, modifiers: node.modifiers },
  );
}

// ---------------------------------------------------------------------------------------------
// ExperimentQuery

interface EventSource {
  kind: 'EventsNode' | 'ActionsNode';
  event?: string | null;
  math?: string;
  math_property?: string;
  properties?: AnyProperties;
}

interface Metric {
  kind: 'ExperimentMetric';
  metric_type: 'mean' | 'funnel' | 'ratio';
  source?: EventSource;
  series?: EventSource[];
  numerator?: EventSource;
  denominator?: EventSource;
  conversion_window?: number | null;
  conversion_window_unit?: string | null;
  lower_bound_percentile?: number | null;
  upper_bound_percentile?: number | null;
  ignore_zeros?: boolean | null;
}

const MEAN_MATHS = ['total', 'sum', 'unique_session'];
const UNITS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
  month: 2592000,
};

function checkSource(raw: unknown, attr: string): EventSource {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad('The metric source must be an EventsNode', attr);
  const src = raw as Record<string, unknown>;
  if (src.kind !== 'EventsNode')
    throw bad(
      src.kind === 'ActionsNode' || src.kind === 'DataWarehouseNode'
        ? `${src.kind} metric sources are not supported yet; use an EventsNode`
        : 'The metric source must be an EventsNode',
      attr,
    );
  if (src.event !== undefined && src.event !== null && typeof src.event !== 'string')
    throw bad('The metric source needs an event name (or null for all events)', attr);
  const math = src.math ?? 'total';
  if (typeof math !== 'string' || !MEAN_MATHS.includes(math))
    throw bad(`math must be one of ${MEAN_MATHS.join(', ')}`, attr);
  if (math === 'sum' && (typeof src.math_property !== 'string' || src.math_property === ''))
    throw bad('math "sum" needs a math_property', attr);
  if (src.properties !== undefined && src.properties !== null && typeof src.properties !== 'object')
    throw bad('properties must be a list of property filters', attr);
  return src as unknown as EventSource;
}

/** Percentiles are fractions in [0, 1], the lower below the upper (else a 400 naming the field). */
function checkOutliers(m: Record<string, unknown>): void {
  for (const k of ['lower_bound_percentile', 'upper_bound_percentile'] as const) {
    const v = m[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1)
      throw bad(`${k} must be a number between 0 and 1`, `metric__${k}`);
  }
  const lo = m.lower_bound_percentile;
  const hi = m.upper_bound_percentile;
  if (typeof lo === 'number' && typeof hi === 'number' && lo >= hi)
    throw bad(
      'lower_bound_percentile must be below upper_bound_percentile',
      'metric__lower_bound_percentile',
    );
  if (m.ignore_zeros !== undefined && m.ignore_zeros !== null && typeof m.ignore_zeros !== 'boolean')
    throw bad('ignore_zeros must be a boolean', 'metric__ignore_zeros');
}

export function checkMetric(raw: unknown): Metric {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw bad('metric is required', 'metric');
  const m = raw as Record<string, unknown>;
  if (m.kind !== 'ExperimentMetric') throw bad('metric.kind must be "ExperimentMetric"', 'metric');
  if (m.metric_type === 'mean') {
    checkSource(m.source, 'metric__source');
    checkOutliers(m);
  } else if (m.metric_type === 'funnel') {
    if (!Array.isArray(m.series) || m.series.length < 1 || m.series.length > 20)
      throw bad('A funnel metric needs 1 to 20 steps in series', 'metric__series');
    m.series.forEach((step, i) => {
      const src = checkSource(step, `metric__series__${i}`);
      if (src.math && src.math !== 'total') throw bad('Funnel steps take no math', `metric__series__${i}`);
    });
  } else if (m.metric_type === 'ratio') {
    checkSource(m.numerator, 'metric__numerator');
    checkSource(m.denominator, 'metric__denominator');
  } else throw bad('metric_type must be "mean", "funnel" or "ratio"', 'metric__metric_type');
  if (m.conversion_window !== undefined && m.conversion_window !== null) {
    if (typeof m.conversion_window !== 'number' || !(m.conversion_window > 0))
      throw bad('conversion_window must be a positive number', 'metric__conversion_window');
    const unit = m.conversion_window_unit ?? 'day';
    if (typeof unit !== 'string' || !(unit in UNITS))
      throw bad(
        `conversion_window_unit must be one of ${Object.keys(UNITS).join(', ')}`,
        'metric__conversion_window_unit',
      );
  }
  return m as unknown as Metric;
}

function checkExperimentNode(node: QueryNode): QueryNode {
  checkExperimentId(node);
  checkMetric(node.metric);
  return node;
}

function windowSeconds(m: Metric): number | null {
  if (!m.conversion_window) return null;
  return m.conversion_window * (UNITS[m.conversion_window_unit ?? 'day'] ?? 86400);
}

function sourceWhere(src: EventSource): Expr {
  const parts: Expr[] = [];
  if (src.event) parts.push(exprOf('event = {e}', { e: src.event }));
  if (src.properties && (!Array.isArray(src.properties) || src.properties.length))
    parts.push(at('metric', () => propertiesToExpr(src.properties as AnyProperties, 'events')));
  return parts.length ? andAll(parts) : constant(true);
}

// ---------------------------------------------------------------------------------------------
// ExperimentQuery: one scan per person

/**
 * The metric's sources as flags and amounts on each scanned event: `f<i>` (the event matches
 * source i) and `a<i>` (its amount for `sum`), plus the conditions the scan keeps events by.
 */
function sourceExprs(sources: EventSource[], s: Setup): Record<string, Expr> {
  const range = [exprOf('timestamp <= toDateTime64({t}, 3)', { t: s.to.toMillis() / 1000 })];
  // Events before the experiment's start cannot follow an exposure: they are not read at all.
  if (s.from) range.unshift(exprOf('timestamp >= toDateTime64({t}, 3)', { t: s.from.toMillis() / 1000 }));
  const exprs: Record<string, Expr> = {
    metric_where: andAll([
      ...range,
      sources.length === 1
        ? sourceWhere(sources[0] as EventSource)
        : ({ node: 'Or', exprs: sources.map(sourceWhere) } as unknown as Expr),
    ]),
  };
  sources.forEach((src, i) => {
    exprs[`f${i}`] = sourceWhere(src);
    if ((src.math ?? 'total') === 'sum')
      exprs[`a${i}`] = exprOf(
        'ifNull(toFloat({p}), 0)',
        {},
        { p: field(['properties', src.math_property as string]) },
      );
  });
  return exprs;
}

/** Source i's columns on each scanned metric event: whether it matches, and its amount or session. */
function sourceColumns(src: EventSource, i: number): string {
  const math = src.math ?? 'total';
  // Read from the JSON only on the events of the source.
  if (math === 'sum') return `{f${i}} AS f${i}, if(f${i}, {a${i}}, 0) AS a${i}`;
  if (math === 'unique_session')
    return `{f${i}} AS f${i}, if(f${i}, toString(properties.$session_id), '') AS sid${i}`;
  return `{f${i}} AS f${i}`;
}

/** The same columns on the exposures' rows, which the metric's rows count instead. */
function noSourceColumns(src: EventSource, i: number): string {
  const math = src.math ?? 'total';
  if (math === 'sum') return `0 AS f${i}, 0.0 AS a${i}`;
  if (math === 'unique_session') return `0 AS f${i}, '' AS sid${i}`;
  return `0 AS f${i}`;
}

/** Per person, the array of source i's events (times in ms, with amount or session when needed). */
function sourceArray(src: EventSource, i: number, sorted: boolean): string {
  const math = src.math ?? 'total';
  const array =
    math === 'sum'
      ? `groupArrayIf(tuple(ms, a${i}), f${i})`
      : math === 'unique_session'
        ? `groupArrayIf(tuple(ms, sid${i}), f${i} AND sid${i} != '')`
        : `groupArrayIf(ms, f${i})`;
  return `${sorted ? `arraySort(${array})` : array} AS e${i}`;
}

/** Source i's columns as the per-person stage reads them from the joined rows. */
function sourceRowColumns(src: EventSource, i: number): string {
  const math = src.math ?? 'total';
  if (math === 'sum') return `r.f${i} AS f${i}, r.a${i} AS a${i}`;
  if (math === 'unique_session') return `r.f${i} AS f${i}, r.sid${i} AS sid${i}`;
  return `r.f${i} AS f${i}`;
}

/**
 * The exposures' rows and the metric's rows, as two scans: only the exposures read the JSON (the
 * flag and variant), the metric's events read it only for an amount or session. An event that is
 * both an exposure and a metric event is a row of each, which the aggregates count as one row did.
 */
const ROWS = `
  SELECT distinct_id AS did, event_person_id AS epid, toUnixTimestamp64Milli(timestamp) AS ms,
    1 AS is_exposure, toString({v}) AS exposure_variant, {no_columns}
  FROM events {exposure_prewhere} WHERE {exposure}
  UNION ALL
  SELECT distinct_id AS did, event_person_id AS epid, toUnixTimestamp64Milli(timestamp) AS ms,
    0 AS is_exposure, '' AS exposure_variant, {columns}
  FROM events {prewhere} WHERE {metric_where}`;

/**
 * One row per exposed person: the variant (of the first exposure under `first_seen`, `$multiple`
 * when several were seen under `exclude`), the first exposure in ms and, per source, the person's
 * matching events as an array (`e<i>`). The person is the one `person_id` gives in the query's
 * persons-on-events mode (the distinct id's mapping, as insights resolve it), joined on the scanned
 * rows themselves: grouping them by distinct id first, to look up fewer ids, cost more than the
 * lookup it saved (a second hash aggregation over every row; 10M events: 830 against 560 ms on the
 * engine). Which events follow the exposure is decided on the arrays, after grouping: no join of
 * exposures to events.
 */
const PER_PERSON = `
  SELECT entity, {variant_expr} AS variant, minIf(ms, is_exposure) AS exposed, {arrays}
  FROM (SELECT {entity} AS entity, r.is_exposure AS is_exposure, r.exposure_variant AS exposure_variant,
      r.ms AS ms, {row_columns}
    FROM ({rows}) AS r {join})
  GROUP BY entity HAVING countIf(is_exposure) > 0`;

function variantOf(s: Setup): string {
  // Several variants seen when the least and the greatest differ: no set of them per person.
  return s.criteria.multiple_variant_handling === 'first_seen'
    ? 'argMinIf(exposure_variant, ms, is_exposure)'
    : `if(minIf(exposure_variant, is_exposure) != maxIf(exposure_variant, is_exposure), '${MULTIPLE_VARIANT_KEY}', anyIf(exposure_variant, is_exposure))`;
}

/** How `person_id` resolves a distinct id in the mode (as the events table's field does). */
function personOf(node: ExperimentNodeBase, ctx: RunnerContext): { entity: string; join: string } {
  const mode = effectiveModifiers(withTeamModifiers(node.modifiers, ctx.teamModifiers)).personsOnEventsMode;
  const on = 'person_distinct_ids AS pdi ON r.did = pdi.distinct_id';
  if (mode === 'person_id_no_override_properties_on_events') return { entity: 'r.epid', join: '' };
  if (mode === 'disabled') return { entity: 'pdi.person_id', join: `INNER JOIN ${on}` };
  return { entity: 'if(empty(pdi.person_id), r.epid, pdi.person_id)', join: `LEFT JOIN ${on}` };
}

/** A lambda body's test that time `x` (ms) is inside the metric's window after the exposure. */
function windowTest(m: Metric, x: string): string {
  const w = windowSeconds(m);
  return w ? `${x} >= exposed AND ${x} < exposed + ${Math.round(w * 1000)}` : `${x} >= exposed`;
}

/** The per-person query and its placeholders' expressions. */
function perPerson(
  sources: EventSource[],
  s: Setup,
  node: ExperimentNodeBase,
  ctx: RunnerContext,
  sorted: boolean,
): { text: string; exprs: Record<string, Expr> } {
  const { variant, where } = exposureParts(s, ctx);
  // Only the events named by the sources are read (the name is in the sort key, so duplicates
  // collapsed by FINAL share it); a source on all events reads them all.
  const names = sources.every((src) => src.event) ? sources.map((src) => src.event) : null;
  const rows = ROWS.replace('{no_columns}', sources.map(noSourceColumns).join(', '))
    .replace('{columns}', sources.map(sourceColumns).join(', '))
    .replace('{exposure_prewhere}', 'PREWHERE event = {exposure_event}')
    .replace('{prewhere}', names ? 'PREWHERE event IN {names}' : '');
  const person = personOf(node, ctx);
  const text = PER_PERSON.replace('{variant_expr}', variantOf(s))
    .replace('{arrays}', sources.map((src, i) => sourceArray(src, i, sorted)).join(', '))
    .replace('{row_columns}', sources.map(sourceRowColumns).join(', '))
    .replace('{rows}', rows)
    .replace('{entity}', person.entity)
    .replace('{join}', person.join);
  const exprs: Record<string, Expr> = {
    v: variant,
    exposure: where,
    exposure_event: exprOf('{e}', { e: exposureEvent(s) }),
    ...sourceExprs(sources, s),
  };
  if (names) exprs.names = exprOf('{n}', { n: [...new Set(names)] });
  return { text, exprs };
}

/** The person's value of source i (count, sum or distinct sessions) over events in the window. */
function sourceValue(src: EventSource, i: number, m: Metric): string {
  const math = src.math ?? 'total';
  if (math === 'sum') return `arraySum(arrayMap(e -> if(${windowTest(m, 'e.1')}, e.2, 0), e${i}))`;
  if (math === 'unique_session')
    return `length(arrayDistinct(arrayMap(e -> e.2, arrayFilter(e -> ${windowTest(m, 'e.1')}, e${i}))))`;
  return `arrayCount(x -> ${windowTest(m, 'x')}, e${i})`;
}

/** Per exposed person: the values of the metric's sources. */
const PER_ENTITY = `SELECT entity, variant, {values} FROM ({per_person})`;

/** Sums per variant, for the statistics: only these rows come back. */
const PER_VARIANT = `
  SELECT variant, count() AS n, sum(v0) AS s, sum(v0 * v0) AS ss, sum(v1) AS ds, sum(v1 * v1) AS dss, sum(v0 * v1) AS sp
  FROM ({per_entity}) GROUP BY variant`;

/**
 * Funnel metrics, per variant, in ClickHouse: per person, step i is the first time of a step-i
 * event at or after step i-1 (step 0: at or after the exposure), inside the conversion window from
 * the exposure (`r<i>`, -1 once a step is missed). The steps' arrays are sorted, so the first
 * match is the earliest; `reached` counts the steps found.
 */
const FUNNEL = `
  SELECT variant, count() AS n, {counts}
  FROM (SELECT variant, {chain}, {reached} AS reached FROM ({per_person}))
  GROUP BY variant`;

function funnelText(m: Metric, steps: number): string {
  const w = windowSeconds(m);
  const chain = Array.from({ length: steps }, (_, i) => {
    const prev = i === 0 ? 'exposed' : `r${i - 1}`;
    const test = `x >= ${prev}${w ? ` AND x < exposed + ${Math.round(w * 1000)}` : ''}`;
    return `if(${prev} < 0 OR NOT arrayExists(x -> ${test}, e${i}), -1, arrayFirst(x -> ${test}, e${i})) AS r${i}`;
  });
  const reached = Array.from({ length: steps }, (_, i) => `if(r${i} >= 0, 1, 0)`).join(' + ');
  const counts = Array.from({ length: steps }, (_, i) => `countIf(reached >= ${i + 1}) AS c${i}`);
  return FUNNEL.replace('{counts}', counts.join(', '))
    .replace('{chain}', chain.join(', '))
    .replace('{reached}', reached);
}

/**
 * Outlier handling (PostHog's winsorization of a mean metric): each person's value is clamped to
 * [lower, upper], the `lower_bound_percentile` / `upper_bound_percentile` quantiles of the
 * per-person values of every exposed person (min / max when one is not set); with `ignore_zeros`
 * the upper quantile is taken over the non-zero values only. ClickHouse's `quantile` interpolates
 * linearly between ranks, as PostHog's does.
 */
const WINSORIZED = `
  SELECT pe.variant AS variant, count() AS n, sum(w) AS s, sum(w * w) AS ss, 0 AS ds, 0 AS dss, 0 AS sp
  FROM (
    SELECT pv.variant AS variant, least(greatest(pv.v0, b.lo), b.hi) AS w
    FROM ({per_entity}) AS pv
    CROSS JOIN (SELECT {lower} AS lo, {upper} AS hi FROM ({per_entity})) AS b
  ) AS pe GROUP BY variant`;
/** A variant's sums for a mean (one source) or a ratio (numerator and denominator) metric. */
export interface RatioStats extends VariantStats {
  denominator_sum?: number;
  denominator_sum_squares?: number;
  numerator_denominator_sum_product?: number;
}

/** The bounds' expressions, or null when the metric has no outlier handling. */
function outlierBounds(m: Metric): { lower: string; upper: string } | null {
  const lo = m.lower_bound_percentile;
  const hi = m.upper_bound_percentile;
  if ((lo === undefined || lo === null) && (hi === undefined || hi === null)) return null;
  const level = (p: number) => String(Number(p));
  return {
    lower: typeof lo === 'number' ? `quantile(${level(lo)})(v0)` : 'min(v0)',
    upper:
      typeof hi === 'number'
        ? m.ignore_zeros
          ? `quantile(${level(hi)})(if(v0 != 0, v0, NULL))`
          : `quantile(${level(hi)})(v0)`
        : 'max(v0)',
  };
}

async function meanStats(
  m: Metric,
  s: Setup,
  node: ExperimentNodeBase,
  ctx: RunnerContext,
): Promise<Map<string, RatioStats>> {
  const ratio = m.metric_type === 'ratio';
  const sources = ratio
    ? [m.numerator as EventSource, m.denominator as EventSource]
    : [m.source as EventSource];
  const person = perPerson(sources, s, node, ctx, false);
  const values = [
    `${sourceValue(sources[0] as EventSource, 0, m)} AS v0`,
    ratio ? `${sourceValue(sources[1] as EventSource, 1, m)} AS v1` : '0 AS v1',
  ];
  const winsor = ratio ? null : outlierBounds(m);
  const base = winsor
    ? WINSORIZED.replace('{lower}', winsor.lower).replace('{upper}', winsor.upper)
    : PER_VARIANT;
  const text = base
    .replaceAll('{per_entity}', PER_ENTITY)
    .replaceAll('{per_person}', person.text)
    .replaceAll('{values}', values.join(', '));
  const run = await runSelect(parseSelect(text) as SelectQuery, ctx, {
    modifiers: node.modifiers,
    exprs: person.exprs,
  });
  const out = new Map<string, RatioStats>();
  for (const [variant, n, sum, ss, ds, dss, sp] of run.rows)
    out.set(String(variant), {
      key: String(variant),
      number_of_samples: Number(n),
      sum: Number(sum ?? 0),
      sum_squares: Number(ss ?? 0),
      ...(ratio
        ? {
            denominator_sum: Number(ds ?? 0),
            denominator_sum_squares: Number(dss ?? 0),
            numerator_denominator_sum_product: Number(sp ?? 0),
          }
        : {}),
    });
  return out;
}

async function funnelStats(
  m: Metric,
  s: Setup,
  node: ExperimentNodeBase,
  ctx: RunnerContext,
): Promise<Map<string, VariantStats & { step_counts: number[] }>> {
  const series = m.series as EventSource[];
  const person = perPerson(series, s, node, ctx, true);
  const text = funnelText(m, series.length).replace('{per_person}', person.text);
  const run = await runSelect(parseSelect(text) as SelectQuery, ctx, {
    modifiers: node.modifiers,
    exprs: person.exprs,
  });
  const out = new Map<string, VariantStats & { step_counts: number[] }>();
  for (const row of run.rows) {
    const variant = String(row[0]);
    const step_counts = series.map((_, i) => Number(row[2 + i]));
    const converted = step_counts[series.length - 1] ?? 0;
    out.set(variant, {
      key: variant,
      number_of_samples: Number(row[1]),
      sum: converted,
      sum_squares: converted,
      step_counts,
    });
  }
  return out;
}

type Failure = 'not-enough-exposures' | 'baseline-mean-is-zero';

function failures(st: VariantStats, baseline = false): Failure[] {
  const f: Failure[] = [];
  if (st.number_of_samples < 2) f.push('not-enough-exposures');
  if (baseline && st.number_of_samples > 0 && st.sum === 0) f.push('baseline-mean-is-zero');
  return f;
}

/**
 * What the comparison functions take. A ratio metric (ΣN / ΣD per variant) becomes a variant with
 * the ratio as its mean and the delta-method variance of the ratio as the variance of that mean,
 * so the same Welch / Bayesian comparison applies.
 */
export function comparable(st: RatioStats): VariantStats {
  if (st.denominator_sum === undefined) return st;
  const n = st.number_of_samples;
  const none = { key: st.key, number_of_samples: 0, sum: 0, sum_squares: 0 };
  if (n < 2 || !st.denominator_sum) return none;
  const mN = st.sum / n;
  const mD = st.denominator_sum / n;
  const varN = (st.sum_squares - n * mN * mN) / (n - 1);
  const varD = ((st.denominator_sum_squares ?? 0) - n * mD * mD) / (n - 1);
  const cov = ((st.numerator_denominator_sum_product ?? 0) - n * mN * mD) / (n - 1);
  const r = mN / mD;
  const varMean = Math.max(0, (varN / mD ** 2 - (2 * mN * cov) / mD ** 3 + (mN ** 2 * varD) / mD ** 4) / n);
  return { key: st.key, number_of_samples: n, sum: n * r, sum_squares: (n - 1) * n * varMean + n * r * r };
}

async function runExperiment(node: ExperimentNodeBase, ctx: RunnerContext): Promise<QueryResult> {
  const started = performance.now();
  const metric = checkMetric(node.metric);
  const s = await setupOf(node, ctx);
  if (!s.from) throw bad('The experiment has not started: it has no exposures yet.', 'experiment_id');
  const stats =
    metric.metric_type === 'funnel'
      ? await funnelStats(metric, s, node, ctx)
      : await meanStats(metric, s, node, ctx);
  const empty = (key: string): VariantStats => ({ key, number_of_samples: 0, sum: 0, sum_squares: 0 });
  const control = stats.get('control') ?? empty('control');
  const cfg = (s.experiment.config.stats_config ?? {}) as {
    method?: string;
    alpha?: number;
    ci_level?: number;
  };
  const method = cfg.method === 'frequentist' ? 'frequentist' : 'bayesian';
  const variant_results = s.variants
    .filter((k) => k !== 'control')
    .map((k) => {
      const st = stats.get(k) ?? empty(k);
      const base = { ...st, validation_failures: failures(st) };
      if (method === 'frequentist') {
        const r = frequentist(
          comparable(control),
          comparable(st),
          typeof cfg.alpha === 'number' ? cfg.alpha : 0.05,
        );
        return {
          ...base,
          method,
          significant: r.significant,
          p_value: r.p_value,
          confidence_interval: r.confidence_interval,
        };
      }
      const r = bayesian(
        comparable(control),
        comparable(st),
        typeof cfg.ci_level === 'number' ? cfg.ci_level : 0.95,
      );
      return {
        ...base,
        method,
        significant: r.significant,
        chance_to_win: r.chance_to_win,
        credible_interval: r.credible_interval,
      };
    });
  return queryResponse(
    {
      kind: 'ExperimentQuery',
      results: undefined,
      metric: node.metric,
      baseline: { ...control, validation_failures: failures(control, true) },
      variant_results,
      stats_version: 2,
    },
    { seconds: (performance.now() - started) / 1000, modifiers: node.modifiers },
  );
}

export const experimentRunners: Record<string, QueryRunner> = {
  ExperimentExposureQuery: {
    check: checkExposureNode,
    run: (node, ctx) => runExposures(node as ExperimentNodeBase, ctx),
    staleness: { interval: 'minute' },
    metaState: (deps, teamId) => experimentsState(deps.meta, teamId),
  },
  ExperimentQuery: {
    check: checkExperimentNode,
    run: (node, ctx) => runExperiment(node as ExperimentNodeBase, ctx),
    staleness: { interval: 'minute' },
    metaState: (deps, teamId) => experimentsState(deps.meta, teamId),
  },
};
