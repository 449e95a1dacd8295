import { randomUUID } from 'node:crypto';
import { invalidChoice, notFound, validationError } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import type { IssueAssignee } from '../../store/meta/error-tracking.js';
import {
  deleteRule,
  getRule,
  insertRule,
  issuesOfGroupingRules,
  listRules,
  type RuleKind,
  type RuleRecord,
  reorderRules,
  updateRule,
} from '../../store/meta/error-tracking-rules.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { matchProperty, PROPERTY_OPERATORS } from '../flags/properties.js';
import type { PropertyFilter } from '../flags/types.js';
import { checkAssignee } from './issues.js';

/** Rules of a kind per project. */
export const MAX_RULES = 200;
/** How long a node trusts the rules it read (changes made on the node are seen at once). */
export const RULES_TTL_MS = 10_000;
const MAX_DEPTH = 4;
const MAX_LEAVES = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** PostHog's `PropertyGroupFilterValue`: `{type: AND | OR, values: [filter | group]}`. */
export interface PropertyGroup {
  type: 'AND' | 'OR';
  values: (PropertyGroup | PropertyFilter)[];
}

const isGroup = (v: unknown): v is PropertyGroup =>
  typeof v === 'object' && v !== null && 'values' in v && !('key' in v);

/** Checks a rule's filters as PostHog's `PropertyGroupFilterValue`; a 400 on `filters` otherwise. */
export function checkFilters(value: unknown): PropertyGroup {
  let leaves = 0;
  const walk = (g: unknown, depth: number): void => {
    if (typeof g !== 'object' || g === null || Array.isArray(g))
      throw validationError('Expected a JSON object.', 'filters');
    const group = g as Record<string, unknown>;
    if (group.type !== 'AND' && group.type !== 'OR')
      throw validationError('Invalid filters payload.', 'filters');
    if (!Array.isArray(group.values)) throw validationError('Invalid filters payload.', 'filters');
    if (depth > MAX_DEPTH) throw validationError(`Filters nest at most ${MAX_DEPTH} deep.`, 'filters');
    for (const v of group.values) {
      if (isGroup(v)) {
        walk(v, depth + 1);
        continue;
      }
      if (typeof v !== 'object' || v === null || typeof (v as PropertyFilter).key !== 'string') {
        throw validationError('Invalid filters payload.', 'filters');
      }
      const op = (v as PropertyFilter).operator ?? 'exact';
      if (!(PROPERTY_OPERATORS as readonly string[]).includes(op))
        throw invalidChoice(op, PROPERTY_OPERATORS, 'filters');
      if (++leaves > MAX_LEAVES) throw validationError(`At most ${MAX_LEAVES} filters.`, 'filters');
    }
  };
  walk(value, 0);
  return value as PropertyGroup;
}

const NEGATIVE = new Set([
  'is_not',
  'not_icontains',
  'not_regex',
  'not_starts_with',
  'not_ends_with',
  'not_icontains_multi',
  'is_not_set',
]);

/**
 * One filter against an exception's properties. PostHog's `$exception_*` lists are arrays: a
 * positive operator matches when one element does, a negative one when every element does.
 */
function matchLeaf(f: PropertyFilter, props: Record<string, unknown>, now: Date): boolean {
  const actual = props[f.key];
  try {
    if (Array.isArray(actual) && f.operator !== 'is_set' && f.operator !== 'is_not_set') {
      const each = (x: unknown) => matchProperty(f, { [f.key]: x }, now);
      return NEGATIVE.has(f.operator ?? 'exact') ? actual.every(each) : actual.some(each);
    }
    return matchProperty(f, props, now);
  } catch {
    // A pattern too costly for the value: not matched, as a flag condition would not be.
    return false;
  }
}

export function matchesGroup(g: PropertyGroup, props: Record<string, unknown>, now: Date): boolean {
  // An empty group matches everything, as PostHog's compiled `true`.
  if (g.values.length === 0) return true;
  const test = (v: PropertyGroup | PropertyFilter) =>
    isGroup(v) ? matchesGroup(v, props, now) : matchLeaf(v, props, now);
  return g.type === 'OR' ? g.values.some(test) : g.values.every(test);
}

interface TeamRules {
  grouping: RuleRecord[];
  suppression: RuleRecord[];
  at: number;
}

/** Each project's rules, read at most once per `RULES_TTL_MS` per node. */
export class RulesCache {
  private readonly teams = new Map<number, TeamRules>();
  constructor(private readonly meta: MetaDb) {}

  async of(teamId: number, now: number): Promise<TeamRules> {
    const hit = this.teams.get(teamId);
    if (hit && now - hit.at <= RULES_TTL_MS) return hit;
    const [grouping, suppression] = await Promise.all([
      listRules(this.meta, teamId, 'grouping'),
      listRules(this.meta, teamId, 'suppression'),
    ]);
    const entry = {
      grouping: grouping.filter((r) => r.disabledData === null),
      suppression: suppression.filter((r) => r.disabledData === null),
      at: now,
    };
    if (this.teams.size > 10_000) this.teams.clear();
    this.teams.set(teamId, entry);
    return entry;
  }

  forget(teamId: number): void {
    this.teams.delete(teamId);
  }
}

const caches = new WeakMap<MetaDb, RulesCache>();

export function rulesCacheFor(meta: MetaDb): RulesCache {
  let c = caches.get(meta);
  if (!c) {
    c = new RulesCache(meta);
    caches.set(meta, c);
  }
  return c;
}

/** The fingerprint a grouping rule gives its exceptions, as PostHog's cymbal names it. */
export const ruleFingerprint = (ruleId: string) => `custom-rule:${ruleId}`;

export interface RuleView extends RuleRecord {
  issue: { id: string; name: string | null } | null;
}

function checkId(id: string): void {
  if (!UUID.test(id)) throw notFound();
}

export async function listRuleViews(deps: Deps, access: ProjectAccess, kind: RuleKind): Promise<RuleView[]> {
  const rules = await listRules(deps.meta, access.team.id, kind);
  const issues =
    kind === 'grouping'
      ? await issuesOfGroupingRules(
          deps.meta,
          access.team.id,
          rules.map((r) => r.id),
        )
      : new Map();
  return rules.map((r) => ({ ...r, issue: issues.get(r.id) ?? null }));
}

export async function getRuleView(
  deps: Deps,
  access: ProjectAccess,
  kind: RuleKind,
  id: string,
): Promise<RuleView> {
  checkId(id);
  const rule = await getRule(deps.meta, access.team.id, kind, id);
  if (!rule) throw notFound();
  const issues =
    kind === 'grouping' ? await issuesOfGroupingRules(deps.meta, access.team.id, [id]) : new Map();
  return { ...rule, issue: issues.get(id) ?? null };
}

export async function createRule(
  deps: Deps,
  access: ProjectAccess,
  kind: RuleKind,
  body: {
    filters?: unknown;
    description?: string | null | undefined;
    assignee?: IssueAssignee | null | undefined;
  },
): Promise<RuleView> {
  if (body.filters === undefined || body.filters === null)
    throw validationError('This field is required.', 'filters', 'required');
  const filters = checkFilters(body.filters);
  checkAssignee(body.assignee);
  const existing = await listRules(deps.meta, access.team.id, kind);
  if (existing.length >= MAX_RULES)
    throw validationError(`At most ${MAX_RULES} rules per project.`, 'filters');
  const rule = await insertRule(deps.meta, {
    id: randomUUID(),
    teamId: access.team.id,
    kind,
    filters,
    description: body.description,
    assignee: body.assignee,
    now: deps.now().toISOString(),
  });
  rulesCacheFor(deps.meta).forget(access.team.id);
  return { ...rule, issue: null };
}

export async function changeRule(
  deps: Deps,
  access: ProjectAccess,
  kind: RuleKind,
  id: string,
  body: {
    filters?: unknown;
    description?: string | null | undefined;
    assignee?: IssueAssignee | null | undefined;
  },
): Promise<void> {
  checkId(id);
  const filters = body.filters ? checkFilters(body.filters) : undefined;
  checkAssignee(body.assignee);
  // PostHog's update keeps a field that is absent, null or empty.
  const changed = await updateRule(
    deps.meta,
    access.team.id,
    kind,
    id,
    { filters, description: body.description || undefined, assignee: body.assignee ?? undefined },
    deps.now().toISOString(),
  );
  if (!changed) throw notFound();
  rulesCacheFor(deps.meta).forget(access.team.id);
}

export async function removeRule(
  deps: Deps,
  access: ProjectAccess,
  kind: RuleKind,
  id: string,
): Promise<void> {
  checkId(id);
  if (!(await deleteRule(deps.meta, access.team.id, kind, id))) throw notFound();
  rulesCacheFor(deps.meta).forget(access.team.id);
}

export async function reorder(
  deps: Deps,
  access: ProjectAccess,
  kind: RuleKind,
  orders: Record<string, number>,
): Promise<void> {
  const entries = Object.entries(orders);
  if (entries.length > MAX_RULES) throw validationError(`At most ${MAX_RULES} rules.`, 'orders');
  for (const [id, key] of entries) {
    if (!UUID.test(id)) throw validationError(`"${id.slice(0, 64)}" is not a valid UUID.`, 'orders');
    if (!Number.isInteger(key) || Math.abs(key) > 2_147_483_647)
      throw validationError('Expected an integer order key.', 'orders');
  }
  await reorderRules(deps.meta, access.team.id, kind, orders);
  rulesCacheFor(deps.meta).forget(access.team.id);
}
