import { invalidChoice, validationError } from '../../errors.js';
import type { PropertyFilter } from '../../hogql/property-filters.js';
import { checkRegex } from '../regex/check.js';
import { at, choice, list, number, object, required, scalar, string, unsupported } from './check.js';
import { elementFilter } from './element-filter.js';
import {
  type ConsoleLevel,
  type Leaf,
  METRIC_OPERATORS,
  METRICS,
  PROPERTY_OPERATORS,
  type PropertyCondition,
} from './filter-types.js';

const MAX_VALUES = 500;
const TYPES = [
  'events',
  'actions',
  'event',
  'element',
  'person',
  'cohort',
  'recording',
  'log_entry',
] as const;
const NOT_YET: Record<string, string> = {
  session: 'Filtering recordings by session properties',
  group: 'Filtering recordings by group properties',
  hogql: 'Filtering recordings with HogQL expressions',
  data_warehouse: 'Filtering recordings by data warehouse properties',
  data_warehouse_person_property: 'Filtering recordings by data warehouse properties',
  feature: 'Filtering recordings by feature flags',
};

/** A property condition's operator and value, checked for each other. */
export function condition(
  raw: Record<string, unknown>,
  path: string,
  source: 'event' | 'person',
): PropertyCondition {
  const key = string(required(raw.key, at(path, 'key')), at(path, 'key'), 400);
  if (key === '') throw validationError('This field may not be blank.', at(path, 'key'), 'blank');
  const operator = choice(raw.operator ?? 'exact', PROPERTY_OPERATORS, at(path, 'operator'));
  const vPath = at(path, 'value');
  if (operator === 'is_set' || operator === 'is_not_set') return { source, key, operator, values: [] };
  const value = required(raw.value, vPath);
  if (operator === 'gt' || operator === 'gte' || operator === 'lt' || operator === 'lte') {
    return {
      source,
      key,
      operator,
      values: [],
      number: number(Array.isArray(value) ? value[0] : value, vPath),
    };
  }
  const values = Array.isArray(value)
    ? list(value, vPath, MAX_VALUES).map((v, i) => scalar(v, at(vPath, i)))
    : [scalar(value, vPath)];
  if (values.length === 0) throw validationError('This list may not be empty.', vPath, 'empty');
  if (operator === 'regex' || operator === 'not_regex') checkRegex(values[0] as string, vPath);
  return { source, key, operator, values };
}

function recordingLeaf(raw: Record<string, unknown>, path: string): Leaf {
  const key = required(raw.key, at(path, 'key'));
  if (key === 'snapshot_source') {
    const c = condition(raw, path, 'event');
    if (c.operator !== 'exact' && c.operator !== 'is_not') {
      throw invalidChoice(c.operator, ['exact', 'is_not'], at(path, 'operator'));
    }
    return { kind: 'snapshot_source', negate: c.operator === 'is_not', values: c.values };
  }
  if (key === 'visited_page') return { kind: 'visited_page', condition: condition(raw, path, 'event') };
  if (key === 'comment_text') throw unsupported('Filtering recordings by comments', at(path, 'key'));
  const metric = choice(key, METRICS, at(path, 'key'));
  const operator = choice(raw.operator ?? 'gt', METRIC_OPERATORS, at(path, 'operator'));
  const value = number(required(raw.value, at(path, 'value')), at(path, 'value'));
  if (value < 0)
    throw validationError('Ensure this value is greater than or equal to 0.', at(path, 'value'), 'min_value');
  return { kind: 'metric', metric, operator, value };
}

export function consoleLevels(raw: unknown, path: string): ConsoleLevel[] {
  const levels = list(raw, path, 10).map((v, i) =>
    choice(v, ['info', 'log', 'warn', 'error'] as const, at(path, i)),
  );
  return [...new Set(levels.map((l) => (l === 'info' ? 'log' : l)))];
}

function actionId(raw: unknown, path: string): number {
  const n = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 2_147_483_647)
    throw validationError('A valid integer is required.', path, 'invalid');
  return n;
}

/** An `events` or `actions` entry: the event or action, and its own property and element filters. */
function entityLeaf(raw: Record<string, unknown>, path: string, isAction: boolean): Leaf {
  const idPath = at(path, 'id');
  const id = raw.id === undefined || raw.id === null ? null : raw.id;
  const properties: PropertyCondition[] = [];
  const elements: PropertyFilter[] = [];
  list(raw.properties ?? [], at(path, 'properties'), 100).forEach((p, i) => {
    const itemPath = at(at(path, 'properties'), i);
    const item = object(p, itemPath);
    const type = item.type ?? 'event';
    if (type === 'element') elements.push(elementFilter(item, itemPath));
    else if (type === 'event') properties.push(condition(item, itemPath, 'event'));
    else throw unsupported(`A "${String(type)}" property on an event filter`, itemPath);
  });
  const more = elements.length > 0 ? { elements } : {};
  if (!isAction)
    return { kind: 'event', event: id === null ? null : string(id, idPath, 400), properties, ...more };
  const action = { id: actionId(required(id ?? undefined, idPath), idPath), attr: idPath };
  return { kind: 'event', event: null, properties, ...more, action };
}

/** One filter of any kind PostHog's recording filters carry. */
export function leaf(rawValue: unknown, path: string): Leaf {
  const raw = object(rawValue, path);
  const type = raw.type;
  if (typeof type === 'string' && NOT_YET[type]) throw unsupported(NOT_YET[type], at(path, 'type'));
  switch (choice(required(type, at(path, 'type')), TYPES, at(path, 'type'))) {
    case 'events':
      return entityLeaf(raw, path, false);
    case 'actions':
      return entityLeaf(raw, path, true);
    case 'element':
      return { kind: 'event', event: null, properties: [], elements: [elementFilter(raw, path)] };
    case 'event':
      return { kind: 'property', condition: condition(raw, path, 'event') };
    case 'person':
      return { kind: 'property', condition: condition(raw, path, 'person') };
    case 'cohort': {
      const value = Array.isArray(raw.value) ? raw.value[0] : raw.value;
      const id =
        typeof value === 'number'
          ? value
          : typeof value === 'string' && /^\d{1,10}$/.test(value)
            ? Number(value)
            : NaN;
      if (!Number.isSafeInteger(id))
        throw validationError('A cohort filter needs a cohort id.', at(path, 'value'));
      return { kind: 'cohort', id, negate: raw.operator === 'not_in' };
    }
    case 'recording':
      return recordingLeaf(raw, path);
    case 'log_entry': {
      if (raw.key === 'message') throw unsupported('Searching console log messages', at(path, 'key'));
      choice(required(raw.key, at(path, 'key')), ['level'] as const, at(path, 'key'));
      const value = required(raw.value, at(path, 'value'));
      return {
        kind: 'console',
        levels: consoleLevels(Array.isArray(value) ? value : [value], at(path, 'value')),
      };
    }
  }
}
