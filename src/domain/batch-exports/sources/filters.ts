import { validationError } from '../../../errors.js';
import { BASIC_OPERATORS } from '../../../hogql/property-filters.js';
import { checkRegex } from '../../regex/check.js';

/** A property filter as PostHog sends it: `{key, operator, type, value}`. */
export interface PropertyFilter {
  key: string;
  operator: string;
  type: 'event' | 'person';
  value: unknown;
}

const OPERATORS = BASIC_OPERATORS;

const RUN_ATTRIBUTES =
  "'data_interval_start' and 'data_interval_end' are run attributes and not 'filters'. Trigger a backfill if you wish to manually control which periods to batch export.";

/** PostHog's rules, and the subset of filter kinds the exporter can apply. */
export function validateFilters(value: unknown): PropertyFilter[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) throw validationError("'filters' should be an array of filters", 'filters');
  return value.map((raw) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw validationError("'filters' should be an array of filters", 'filters');
    }
    const f = raw as Record<string, unknown>;
    if ('data_interval_start' in f || 'data_interval_end' in f)
      throw validationError(RUN_ATTRIBUTES, 'filters');
    if (typeof f.key !== 'string' || f.key === '')
      throw validationError('Each filter needs a property key.', 'filters');
    const type = f.type ?? 'event';
    if (type !== 'event' && type !== 'person') {
      throw validationError(
        `Filters of type '${String(type)}' are not supported in batch exports.`,
        'filters',
      );
    }
    const operator = f.operator ?? 'exact';
    if (!OPERATORS.includes(operator as (typeof OPERATORS)[number])) {
      throw validationError(`Filter operator '${String(operator)}' is not supported.`, 'filters');
    }
    if (
      ['gt', 'gte', 'lt', 'lte'].includes(operator as string) &&
      !Number.isFinite(Number(strings(f.value)[0]))
    ) {
      throw validationError(`Filter operator '${String(operator)}' needs a number.`, 'filters');
    }
    // The exporter runs it with ClickHouse's match(): one RE2 cannot compile would fail every run.
    if (operator === 'regex' || operator === 'not_regex') checkRegex(strings(f.value)[0] ?? '', 'filters');
    return { key: f.key, operator: operator as string, type, value: f.value ?? null };
  });
}

const strings = (v: unknown) => (Array.isArray(v) ? v : [v]).filter((x) => x !== null).map((x) => String(x));

/** A WHERE fragment over `events` (every value a query parameter) and its parameters. */
export function filterSql(
  filters: PropertyFilter[],
  alias: string,
  prefix = 'f',
): { sql: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = {};
  const parts = filters.map((f, i) => {
    const k = `${prefix}${i}k`;
    const v = `${prefix}${i}v`;
    params[k] = f.key;
    const column = `${alias}.${f.type === 'person' ? 'person_properties' : 'properties'}`;
    const has = `JSONHas(${column}, {${k}:String})`;
    const text = `JSONExtractString(${column}, {${k}:String})`;
    const raw = `JSONExtractRaw(${column}, {${k}:String})`;
    const num = `toFloat64OrNull(${raw})`;
    switch (f.operator) {
      case 'is_set':
        return has;
      case 'is_not_set':
        return `NOT ${has}`;
      case 'exact':
      case 'is_not':
        params[v] = strings(f.value);
        return `${f.operator === 'is_not' ? 'NOT ' : ''}(${has} AND (${text} IN {${v}:Array(String)} OR ${raw} IN {${v}:Array(String)}))`;
      case 'icontains':
      case 'not_icontains':
        params[v] = strings(f.value)[0] ?? '';
        return `${f.operator === 'not_icontains' ? 'NOT ' : ''}positionCaseInsensitiveUTF8(${text}, {${v}:String}) > 0`;
      case 'regex':
      case 'not_regex':
        params[v] = strings(f.value)[0] ?? '';
        return `${f.operator === 'not_regex' ? 'NOT ' : ''}match(${text}, {${v}:String})`;
      default: {
        params[v] = Number(strings(f.value)[0]);
        const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[f.operator as 'gt'];
        return `${num} ${op} {${v}:Float64}`;
      }
    }
  });
  return { sql: parts.length > 0 ? parts.join(' AND ') : '1', params };
}
