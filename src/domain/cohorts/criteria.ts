import { validationError } from '../../errors.js';
import { and, compare, constant, type Expr, field } from '../../hogql/ast.js';
import { HogQLQueryError } from '../../hogql/errors.js';
import { type PropertyFilter, propertyFilterToExpr } from '../../hogql/property-filters.js';

/**
 * A dynamic cohort's criteria as a condition on the `persons` table, from PostHog's `filters`
 * (`{properties: {type: AND|OR, values: [...]}}`, leaves being person property filters, cohort
 * filters, or behavioral filters "performed event X at least N times in the last D days") or the
 * legacy `groups` (an OR of `{properties: [...]}` / `{event_id, days, count, count_operator}`).
 */
export function cohortCondition(filters: unknown, groups: unknown[]): Expr {
  try {
    if (filters && typeof filters === 'object' && (filters as { properties?: unknown }).properties) {
      return node((filters as { properties: unknown }).properties, 0);
    }
    if (groups.length === 0) throw validationError('A dynamic cohort needs filters or groups.', 'filters');
    return { node: 'Or', exprs: groups.map((g) => legacyGroup(g)) } as Expr;
  } catch (err) {
    if (err instanceof HogQLQueryError) throw validationError(err.message, 'filters');
    throw err;
  }
}

const MAX_DEPTH = 8;

function node(n: unknown, depth: number): Expr {
  if (depth > MAX_DEPTH) throw validationError('Cohort filters are nested too deeply.', 'filters');
  if (!n || typeof n !== 'object') throw validationError('Invalid cohort filter.', 'filters');
  const o = n as Record<string, unknown>;
  if ((o.type === 'AND' || o.type === 'OR') && Array.isArray(o.values)) {
    const exprs = o.values.map((v) => node(v, depth + 1));
    if (exprs.length === 0) return constant(true);
    const joined = (exprs.length === 1 ? exprs[0] : { node: o.type === 'AND' ? 'And' : 'Or', exprs }) as Expr;
    return o.negation === true ? ({ node: 'Not', expr: joined } as Expr) : joined;
  }
  const leaf = o.type === 'behavioral' ? behavioral(o) : propertyLeaf(o);
  return o.negation === true ? ({ node: 'Not', expr: leaf } as Expr) : leaf;
}

function propertyLeaf(o: Record<string, unknown>): Expr {
  const type = o.type ?? 'person';
  if (type !== 'person' && type !== 'cohort')
    throw validationError(`Cohort filters of type "${String(type)}" are not supported.`, 'filters');
  return propertyFilterToExpr(o as unknown as PropertyFilter, 'persons');
}

const INTERVAL_DAYS: Record<string, number> = { day: 1, week: 7, month: 30, year: 365 };

/** "Performed event X [at least / at most / exactly N times] in the last T units". */
function behavioral(o: Record<string, unknown>): Expr {
  const event = o.key;
  if (typeof event !== 'string' || !event)
    throw validationError('Behavioral filters need an event.', 'filters');
  if (o.event_type !== undefined && o.event_type !== 'events')
    throw validationError('Only event behavioral filters are supported (not actions).', 'filters');
  const amount = Number(o.time_value ?? 30);
  const unit = INTERVAL_DAYS[String(o.time_interval ?? 'day')];
  if (!Number.isInteger(amount) || amount < 1 || amount > 3650 || unit === undefined)
    throw validationError('Behavioral filters need a time_value (1–3650) and time_interval.', 'filters');
  const days = amount * unit;
  let having: Expr = compare('>=', { node: 'Call', name: 'count', args: [] } as Expr, constant(1));
  if (o.value === 'performed_event_multiple') {
    const n = Number(o.operator_value);
    if (!Number.isInteger(n) || n < 0) throw validationError('operator_value must be a count.', 'filters');
    const op = o.operator === 'lte' ? '<=' : o.operator === 'exact' || o.operator === 'eq' ? '==' : '>=';
    having = compare(op, { node: 'Call', name: 'count', args: [] } as Expr, constant(n));
  } else if (o.value !== undefined && o.value !== 'performed_event') {
    throw validationError(`Behavioral filter "${String(o.value)}" is not supported.`, 'filters');
  }
  const performed: Expr = compare('in', field('id'), {
    node: 'SelectQuery',
    select: [field('person_id')],
    select_from: { node: 'JoinExpr', table: field('events') },
    where: and(
      compare('==', field('event'), constant(event)),
      compare('>', field('timestamp'), {
        node: 'Call',
        name: 'minus',
        args: [
          { node: 'Call', name: 'now', args: [] },
          { node: 'Call', name: 'toIntervalDay', args: [constant(days)] },
        ],
      } as Expr),
    ),
    group_by: [field('person_id')],
    having,
  } as unknown as Expr);
  return performed;
}

function legacyGroup(g: unknown): Expr {
  if (!g || typeof g !== 'object') throw validationError('Invalid cohort group.', 'groups');
  const o = g as Record<string, unknown>;
  if (Array.isArray(o.properties)) {
    const exprs = o.properties.map((p) => propertyLeaf(p as Record<string, unknown>));
    return exprs.length ? and(...exprs) : constant(true);
  }
  if (typeof o.event_id === 'string') {
    return behavioral({
      key: o.event_id,
      value: o.count !== undefined ? 'performed_event_multiple' : 'performed_event',
      operator: o.count_operator === 'lte' ? 'lte' : o.count_operator === 'eq' ? 'exact' : 'gte',
      operator_value: o.count ?? 1,
      time_value: o.days ?? 30,
      time_interval: 'day',
    });
  }
  throw validationError('Cohort groups need properties or an event_id.', 'groups');
}

/** The person property filters of a cohort (for feature flags), flattened; undefined if it has others. */
export function personPropertyFilters(filters: unknown): PropertyFilter[] | undefined {
  const out: PropertyFilter[] = [];
  const walk = (n: unknown): boolean => {
    if (!n || typeof n !== 'object') return false;
    const o = n as Record<string, unknown>;
    if (o.type === 'AND' && Array.isArray(o.values)) return o.values.every(walk);
    if (o.type === 'OR' && Array.isArray(o.values)) return o.values.length === 1 && walk(o.values[0]);
    if (o.type === 'person' && typeof o.key === 'string' && o.negation !== true) {
      out.push(o as unknown as PropertyFilter);
      return true;
    }
    return false;
  };
  const props = (filters as { properties?: unknown } | null)?.properties;
  return props && walk(props) ? out : undefined;
}
