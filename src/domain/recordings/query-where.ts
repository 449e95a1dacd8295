import { materializedEventColumn } from '../../store/events/columns.js';
import type { EventsStore } from '../../store/events/store.js';
import type { FilterNode, Leaf, MetricOperator, PropertyCondition } from './filter-types.js';
import { hogqlSessionsSql, needsHogQL } from './query-hogql.js';

/**
 * Recording filters as ClickHouse predicates over one aggregated recording row (`r.*`, and
 * `person_properties` when a person filter needs it). Every user value travels as a typed query
 * parameter; only names chosen here from fixed lists are written into the SQL text.
 */
export class Params {
  readonly values: Record<string, unknown> = {};
  private next = 0;
  add(value: unknown, type: string): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}

export interface WhereContext {
  store: EventsStore;
  params: Params;
  team: string;
  teamId: number;
  /** The project's timezone, for HogQL parts of event filters. */
  timezone: string;
  /** Bounds for event lookups (the recordings' range widened by a day), or null for unbounded. */
  eventsFrom: string | null;
  eventsTo: string | null;
}

const METRIC_SQL: Record<MetricOperator, string> = {
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  exact: '=',
  is_not: '!=',
};

/** HogQL's reading of a JSON property: missing, JSON null and '' are NULL; strings lose quotes. */
function property(source: string, key: string, params: Params, materialize: boolean): string {
  const column = materialize ? materializedEventColumn(key) : undefined;
  if (column) return `\`${column}\``;
  return `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${source}, ${params.add(key, 'String')}), ''), 'null'), '^"|"$', '')`;
}

export function compare(v: string, c: PropertyCondition, params: Params): string {
  const first = () => params.add(c.values[0], 'String');
  switch (c.operator) {
    case 'exact':
      return `ifNull(${v} IN ${params.add(c.values, 'Array(String)')}, 0)`;
    case 'is_not':
      return `ifNull(${v} NOT IN ${params.add(c.values, 'Array(String)')}, 1)`;
    case 'icontains':
      return `ifNull(positionCaseInsensitiveUTF8(${v}, ${first()}) > 0, 0)`;
    case 'not_icontains':
      return `ifNull(positionCaseInsensitiveUTF8(${v}, ${first()}) = 0, 1)`;
    case 'regex':
      return `ifNull(match(${v}, ${first()}), 0)`;
    case 'not_regex':
      return `ifNull(NOT match(${v}, ${first()}), 1)`;
    case 'is_set':
      return `${v} IS NOT NULL`;
    case 'is_not_set':
      return `${v} IS NULL`;
    default:
      return `ifNull(toFloat64OrNull(${v}) ${METRIC_SQL[c.operator]} ${params.add(c.number, 'Float64')}, 0)`;
  }
}

function sessionsWithEvent(ctx: WhereContext, event: string | null, conditions: PropertyCondition[]): string {
  const p = ctx.params;
  const where = [`team_id = ${ctx.team}`, "`$session_id` != ''"];
  if (ctx.eventsFrom) where.push(`timestamp >= ${p.add(ctx.eventsFrom, "DateTime64(6, 'UTC')")}`);
  if (ctx.eventsTo) where.push(`timestamp <= ${p.add(ctx.eventsTo, "DateTime64(6, 'UTC')")}`);
  if (event !== null) where.push(`event = ${p.add(event, 'String')}`);
  for (const c of conditions) where.push(compare(property('properties', c.key, p, true), c, p));
  return `r.session_id IN (SELECT \`$session_id\` FROM ${ctx.store.table('events')} WHERE ${where.join(' AND ')})`;
}

function leafSql(l: Leaf, ctx: WhereContext): string {
  const p = ctx.params;
  switch (l.kind) {
    case 'event':
      return needsHogQL(l) ? hogqlSessionsSql(l, ctx) : sessionsWithEvent(ctx, l.event, l.properties);
    case 'property':
      return l.condition.source === 'event'
        ? sessionsWithEvent(ctx, null, [l.condition])
        : compare(property('person_properties', l.condition.key, p, false), l.condition, p);
    case 'metric':
      return `r.${l.metric} ${METRIC_SQL[l.operator]} ${p.add(l.value, 'Float64')}`;
    case 'snapshot_source':
      return `r.snapshot_source ${l.negate ? 'NOT IN' : 'IN'} ${p.add(l.values, 'Array(String)')}`;
    case 'visited_page': {
      const negative = ['is_not', 'not_icontains', 'not_regex', 'is_not_set'].includes(l.condition.operator);
      const positive = {
        ...l.condition,
        operator: negative ? flip(l.condition.operator) : l.condition.operator,
      };
      const any = `arrayExists(u -> ${compare('u', positive as PropertyCondition, p)}, r.all_urls)`;
      return negative ? `NOT ${any}` : any;
    }
    case 'console':
      return `(${l.levels.map((level) => `r.console_${level}_count > 0`).join(' OR ')})`;
    case 'cohort': {
      const members = `SELECT person_id FROM ${ctx.store.table('cohort_people')} WHERE team_id = ${ctx.team} AND cohort_id = ${p.add(l.id, 'Int64')} AND version = ${p.add(l.version ?? -1, 'Int64')}`;
      return `pp.person_id ${l.negate ? 'NOT IN' : 'IN'} (${members})`;
    }
  }
}

const flip = (op: string) =>
  ({ is_not: 'exact', not_icontains: 'icontains', not_regex: 'regex', is_not_set: 'is_set' })[op] ?? op;

export function whereSql(node: FilterNode, ctx: WhereContext): string {
  if (node.kind !== 'group') return leafSql(node, ctx);
  if (node.children.length === 0) return '1';
  return `(${node.children.map((c) => whereSql(c, ctx)).join(` ${node.operator} `)})`;
}

export function needsPerson(node: FilterNode): boolean {
  if (node.kind === 'group') return node.children.some(needsPerson);
  return (node.kind === 'property' && node.condition.source === 'person') || node.kind === 'cohort';
}

export function needsUrls(node: FilterNode): boolean {
  if (node.kind === 'group') return node.children.some(needsUrls);
  return node.kind === 'visited_page';
}
