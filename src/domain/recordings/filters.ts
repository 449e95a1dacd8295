import { validationError } from '../../errors.js';
import { checkDateFilter } from '../time/date-filter.js';
import { at, boolean, choice, isObject, list, object, string } from './check.js';
import {
  DEFAULT_DATE_FROM,
  type FilterNode,
  type Leaf,
  RECORDING_ORDERS,
  type RecordingQuery,
} from './filter-types.js';
import { consoleLevels, leaf } from './leaves.js';

const MAX_FILTERS = 100;
const MAX_DEPTH = 5;
const OPERANDS = ['AND', 'OR'] as const;

/** Keys Burrow understands; anything else in a filters object is dropped, as DRF drops unknown fields. */
export const FILTER_KEYS = [
  'date_from',
  'date_to',
  'duration',
  'filter_group',
  'filter_test_accounts',
  'order',
  'order_direction',
  'events',
  'actions',
  'properties',
  'operand',
  'console_log_filters',
  'console_logs',
  'having_predicates',
  'session_recording_duration',
  'duration_type_filter',
  'snapshot_source',
  'session_ids',
  'person_uuid',
  'distinct_ids',
] as const;

function group(raw: unknown, path: string, depth: number, budget: { leaves: number }): FilterNode {
  const g = object(raw, path);
  if (depth > MAX_DEPTH)
    throw validationError(`Filter groups may be nested at most ${MAX_DEPTH} deep.`, path);
  const operator = choice(g.type ?? 'AND', OPERANDS, at(path, 'type'));
  const children = list(g.values ?? [], at(path, 'values'), MAX_FILTERS).map((v, i) => {
    const p = at(at(path, 'values'), i);
    if (isObject(v) && Array.isArray(v.values) && (v.type === 'AND' || v.type === 'OR')) {
      return group(v, p, depth + 1, budget);
    }
    return counted(leaf(v, p), p, budget);
  });
  return { kind: 'group', operator, children };
}

function counted(l: Leaf, path: string, budget: { leaves: number }): Leaf {
  budget.leaves += 1;
  if (budget.leaves > MAX_FILTERS) throw validationError(`At most ${MAX_FILTERS} filters are allowed.`, path);
  return l;
}

const leaves = (v: unknown, path: string, budget: { leaves: number }) =>
  list(v, path, MAX_FILTERS).map((x, i) => counted(leaf(x, at(path, i)), at(path, i), budget));

const ids = (v: unknown, path: string) => list(v, path, 1000).map((x, i) => string(x, at(path, i), 200));

/**
 * Validates recording filters in any of PostHog's spellings and returns what to keep (the known
 * keys, as given) and what to run. `path` prefixes error attrs (`filters` for a playlist).
 */
export function parseRecordingFilters(
  rawValue: unknown,
  path: string,
): { stored: Record<string, unknown>; query: RecordingQuery } {
  const raw = object(rawValue, path);
  const stored: Record<string, unknown> = {};
  for (const key of FILTER_KEYS) if (raw[key] !== undefined) stored[key] = raw[key];
  const p = (k: string) => at(path, k);
  const budget = { leaves: 0 };
  const date = (k: 'date_from' | 'date_to') =>
    raw[k] === undefined || raw[k] === null ? null : checkDateFilter(string(raw[k], p(k), 64), p(k));

  // Events, actions, properties and console filters combine with `operand`; the rest always apply.
  const operand = choice(raw.operand ?? 'AND', OPERANDS, p('operand'));
  const either: FilterNode[] = [];
  for (const k of ['events', 'actions', 'properties', 'console_log_filters'] as const) {
    if (raw[k] !== undefined && raw[k] !== null) either.push(...leaves(raw[k], p(k), budget));
  }
  if (raw.console_logs !== undefined && raw.console_logs !== null) {
    const levels = consoleLevels(raw.console_logs, p('console_logs'));
    if (levels.length > 0) either.push({ kind: 'console', levels });
  }
  const all: FilterNode[] = [];
  if (either.length > 0) all.push({ kind: 'group', operator: operand, children: either });
  for (const k of ['duration', 'having_predicates'] as const) {
    if (raw[k] !== undefined && raw[k] !== null) all.push(...leaves(raw[k], p(k), budget));
  }
  if (isObject(raw.session_recording_duration)) {
    const d = { ...raw.session_recording_duration, key: raw.duration_type_filter ?? 'duration' };
    all.push(counted(leaf(d, p('session_recording_duration')), p('session_recording_duration'), budget));
  } else if (raw.session_recording_duration !== undefined && raw.session_recording_duration !== null) {
    object(raw.session_recording_duration, p('session_recording_duration'));
  }
  if (isObject(raw.snapshot_source))
    all.push(counted(leaf(raw.snapshot_source, p('snapshot_source')), p('snapshot_source'), budget));
  if (raw.filter_group !== undefined && raw.filter_group !== null) {
    all.push(group(raw.filter_group, p('filter_group'), 1, budget));
  }

  const query: RecordingQuery = {
    dateFrom: date('date_from') ?? DEFAULT_DATE_FROM,
    dateTo: date('date_to'),
    where: { kind: 'group', operator: 'AND', children: all },
    order:
      raw.order === undefined || raw.order === null
        ? 'start_time'
        : choice(raw.order, RECORDING_ORDERS, p('order')),
    direction: choice(raw.order_direction ?? 'DESC', ['ASC', 'DESC'] as const, p('order_direction')),
    filterTestAccounts:
      raw.filter_test_accounts === undefined || raw.filter_test_accounts === null
        ? false
        : boolean(raw.filter_test_accounts, p('filter_test_accounts')),
  };
  if (raw.session_ids !== undefined && raw.session_ids !== null)
    query.sessionIds = ids(raw.session_ids, p('session_ids'));
  if (raw.distinct_ids !== undefined && raw.distinct_ids !== null)
    query.distinctIds = ids(raw.distinct_ids, p('distinct_ids'));
  if (raw.person_uuid !== undefined && raw.person_uuid !== null)
    query.personUuid = string(raw.person_uuid, p('person_uuid'), 64);
  if (raw.duration_type_filter !== undefined)
    choice(
      raw.duration_type_filter,
      ['duration', 'active_seconds', 'inactive_seconds'] as const,
      p('duration_type_filter'),
    );
  return { stored, query };
}
