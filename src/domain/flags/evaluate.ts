import { RegexTooCostly } from '../regex/re2.js';
import { type CohortPropertyGroup, type CohortState, CohortUnavailable } from './cohorts.js';
import { hashMemo, holdoutHash, variantOf } from './hash.js';
import { matchProperty } from './properties.js';
import type { ConditionGroup, FlagDefinition, FlagReason, FlagResult, PropertyFilter } from './types.js';

/** Everything one evaluation reads; built once per request and shared by every flag. */
export interface EvaluationContext {
  distinctId: string;
  /** Stored person properties with the request's `person_properties` on top. */
  personProperties: Record<string, unknown>;
  /** Group type name → group key, from the request. */
  groups: Record<string, string>;
  /** Group type name → stored group properties with the request's on top. */
  groupProperties: Record<string, Record<string, unknown>>;
  /** Group type index (as a string) → group type name. */
  groupTypeMapping: Record<string, string>;
  /** Experience continuity: the bucketing key per flag key, from the store. */
  hashKeyOverrides: ReadonlyMap<string, string>;
  /** The request's `$anon_distinct_id`: the continuity key when the store has none yet. */
  anonDistinctId: string | null;
  /** Cohorts the flags refer to; null when no cohort source is wired. */
  cohorts: ReadonlyMap<number, CohortState> | null;
  now: Date;
}

/** PostHog's ranking of non-match reasons: the most informative one is reported. */
const RANK: Record<string, number> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  flag_disabled: 0,
};

const DESCRIPTIONS: Record<string, string> = {
  no_condition_match: 'No matching condition set',
  out_of_rollout_bound: 'Out of rollout bound',
  no_group_type: 'No group type',
  super_condition_value: 'Super condition value',
  holdout_condition_value: 'Holdout condition value',
  flag_disabled: 'Feature flag is disabled',
};

const reasons = new Map<string, FlagReason[]>();
/**
 * One shared, frozen object per (code, condition): answers repeat a handful of reasons, and a
 * shared object lets the response cache its JSON once (see `result`).
 */
function reason(code: string, index: number | null): FlagReason {
  let byIndex = reasons.get(code);
  if (byIndex === undefined) {
    byIndex = [];
    reasons.set(code, byIndex);
  }
  const slot = index === null ? 0 : index + 1;
  let r = byIndex[slot];
  if (r === undefined) {
    r = Object.freeze({
      code,
      condition_index: index,
      description:
        code === 'condition_match'
          ? `Matched condition set ${(index ?? 0) + 1}`
          : (DESCRIPTIONS[code] ?? null),
    });
    byIndex[slot] = r;
  }
  return r;
}

interface Outcomes {
  off: Map<FlagReason, FlagResult>;
  on: Map<FlagReason, Map<string | null, FlagResult>>;
}
const outcomes = new WeakMap<FlagDefinition, Outcomes>();

/**
 * The result of a flag for a (enabled, variant, reason): one frozen object per flag definition and
 * outcome, shared by every request until the definition is replaced (a change makes a new one).
 * Evaluating allocates nothing per flag, and `flagsJson` writes each outcome's JSON once.
 */
function result(flag: FlagDefinition, enabled: boolean, variant: string | null, why: FlagReason): FlagResult {
  let known = outcomes.get(flag);
  if (known === undefined) {
    known = { off: new Map(), on: new Map() };
    outcomes.set(flag, known);
  }
  if (!enabled) {
    let r = known.off.get(why);
    if (r === undefined) {
      r = build(flag, false, null, why);
      known.off.set(why, r);
    }
    return r;
  }
  let byVariant = known.on.get(why);
  if (byVariant === undefined) {
    byVariant = new Map();
    known.on.set(why, byVariant);
  }
  let r = byVariant.get(variant);
  if (r === undefined) {
    r = build(flag, true, variant, why);
    byVariant.set(variant, r);
  }
  return r;
}

function build(flag: FlagDefinition, enabled: boolean, variant: string | null, why: FlagReason): FlagResult {
  return Object.freeze({
    key: flag.key,
    enabled,
    variant,
    failed: false,
    reason: why,
    payload: enabled ? payloadOf(flag, variant) : null,
    id: flag.id,
    version: flag.version,
  });
}

function payloadOf(flag: FlagDefinition, variant: string | null): unknown {
  const payloads = flag.filters.payloads;
  if (!payloads) return null;
  return payloads[variant ?? 'true'] ?? null;
}

/** The identifier a person flag is bucketed by: the continuity key when the flag asks for one. */
function personBucket(flag: FlagDefinition, ctx: EvaluationContext): string {
  if (!flag.ensureExperienceContinuity) return ctx.distinctId;
  return ctx.hashKeyOverrides.get(flag.key) ?? ctx.anonDistinctId ?? ctx.distinctId;
}

/**
 * One flag for one person (or group), following PostHog's matcher: condition sets in order, the
 * first whose properties all hold and whose rollout admits the bucketing hash wins; its variant is
 * the override when it names a variant, else the one the variant hash falls in. A flag aggregated
 * by a group type is bucketed by the request's key for that group.
 */
export function evaluateFlag(flag: FlagDefinition, ctx: EvaluationContext): FlagResult {
  if (!flag.active) return result(flag, false, null, reason('flag_disabled', null));
  try {
    return match(flag, ctx);
  } catch (error) {
    // As PostHog's flags service when a regex exceeds its backtrack limit: this flag errs, not all.
    if (!(error instanceof CohortUnavailable || error instanceof RegexTooCostly)) throw error;
    return {
      key: flag.key,
      enabled: false,
      variant: null,
      failed: true,
      reason: { code: 'evaluation_error', condition_index: null, description: error.message },
      payload: null,
      id: flag.id,
      version: flag.version,
    };
  }
}

function match(flag: FlagDefinition, ctx: EvaluationContext): FlagResult {
  const filters = flag.filters;
  const flagAggregation = filters.aggregation_group_type_index ?? null;
  if (flagAggregation !== null && groupKey(flagAggregation, ctx) === null) {
    return result(flag, false, null, reason('no_group_type', null));
  }

  const superGroup = filters.super_groups?.[0];
  if (superGroup && flagAggregation === null) {
    const props = superGroup.properties ?? [];
    // Early access enrolment: decided by the enrolment property alone, when the person has it.
    if (props.length > 0 && props.every((p) => Object.hasOwn(ctx.personProperties, p.key))) {
      const bucket = personBucket(flag, ctx);
      const hit = conditionHolds(flag, superGroup, ctx.personProperties, null, bucket, ctx) === 'match';
      return hit
        ? result(flag, true, chooseVariant(flag, superGroup, bucket), reason('super_condition_value', 0))
        : result(flag, false, null, reason('super_condition_value', 0));
    }
  }

  // An experiment's holdout, after the super condition and before the release conditions, as
  // PostHog's matcher orders them: the held-out share gets `holdout-<id>` instead of a variant.
  // The hash is seeded with "holdout-" alone, not the flag key, so the same users are held out of
  // every experiment that shares the holdout.
  const holdout = filters.holdout;
  if (holdout) {
    const subject = flagAggregation === null ? ctx.distinctId : (groupKey(flagAggregation, ctx) ?? '');
    const share = Math.min(100, Math.max(0, holdout.exclusion_percentage));
    if (share >= 100 || holdoutHash(subject) <= share / 100)
      return result(flag, true, `holdout-${holdout.id}`, reason('holdout_condition_value', null));
  }

  let best = 'no_condition_match';
  let bestIndex: number | null = null;
  const groups = filters.groups ?? [];
  for (let i = 0; i < groups.length; i++) {
    const condition = groups[i] as ConditionGroup;
    const aggregation =
      condition.aggregation_group_type_index !== undefined
        ? condition.aggregation_group_type_index
        : flagAggregation;
    let bucket: string;
    let props: Record<string, unknown>;
    if (aggregation !== null) {
      const key = groupKey(aggregation, ctx);
      if (key === null) {
        if ((RANK.no_group_type as number) >= (RANK[best] as number))
          [best, bestIndex] = ['no_group_type', i];
        continue;
      }
      bucket = key;
      props = ctx.groupProperties[ctx.groupTypeMapping[String(aggregation)] as string] ?? {};
    } else {
      bucket = personBucket(flag, ctx);
      props = ctx.personProperties;
    }
    const outcome = conditionHolds(flag, condition, props, aggregation, bucket, ctx);
    if (outcome === 'match') {
      return result(flag, true, chooseVariant(flag, condition, bucket), reason('condition_match', i));
    }
    if ((RANK[outcome] as number) >= (RANK[best] as number)) [best, bestIndex] = [outcome, i];
  }
  return result(flag, false, null, reason(best, bestIndex));
}

function groupKey(index: number, ctx: EvaluationContext): string | null {
  const name = ctx.groupTypeMapping[String(index)];
  if (name === undefined) return null;
  const key = ctx.groups[name];
  return key === undefined || key === '' ? null : key;
}

function chooseVariant(flag: FlagDefinition, condition: ConditionGroup, bucket: string): string | null {
  const variants = flag.filters.multivariate?.variants ?? [];
  if (variants.length === 0) return null;
  if (condition.variant && variants.some((v) => v.key === condition.variant)) return condition.variant;
  return variantOf(hashMemo.hash(flag.key, bucket, 'variant'), variants);
}

function conditionHolds(
  flag: FlagDefinition,
  condition: ConditionGroup,
  props: Record<string, unknown>,
  aggregation: number | null,
  bucket: string,
  ctx: EvaluationContext,
): 'match' | 'no_condition_match' | 'out_of_rollout_bound' {
  for (const filter of condition.properties ?? []) {
    if (!filterHolds(filter, props, aggregation, ctx)) return 'no_condition_match';
  }
  const rollout = condition.rollout_percentage ?? 100;
  return hashMemo.hash(flag.key, bucket, '') <= rollout / 100 ? 'match' : 'out_of_rollout_bound';
}

function filterHolds(
  filter: PropertyFilter,
  props: Record<string, unknown>,
  aggregation: number | null,
  ctx: EvaluationContext,
): boolean {
  if (filter.type === 'cohort') return inCohort(filter, ctx, new Set());
  if (filter.type === 'group' && filter.group_type_index != null && filter.group_type_index !== aggregation) {
    const name = ctx.groupTypeMapping[String(filter.group_type_index)];
    return matchProperty(filter, (name && ctx.groupProperties[name]) || {}, ctx.now);
  }
  if (filter.type === 'person' && aggregation !== null)
    return matchProperty(filter, ctx.personProperties, ctx.now);
  return matchProperty(filter, props, ctx.now);
}

function inCohort(filter: PropertyFilter, ctx: EvaluationContext, seen: Set<number>): boolean {
  const id = Number(filter.value);
  const state = ctx.cohorts?.get(id);
  if (!state || state.kind === 'unavailable' || seen.has(id)) throw new CohortUnavailable(id);
  let member: boolean;
  if (state.kind === 'membership') member = state.member;
  else {
    seen.add(id);
    member = groupHolds(state.filters, ctx, seen);
    seen.delete(id);
  }
  return filter.operator === 'not_in' ? !member : member;
}

/** PostHog's cohort property groups: AND/OR, nested, `negation` per filter, an empty group matches. */
function groupHolds(group: CohortPropertyGroup, ctx: EvaluationContext, seen: Set<number>): boolean {
  const values = group.values ?? [];
  if (values.length === 0) return true;
  const any = group.type === 'OR';
  for (const v of values) {
    let hit: boolean;
    if ('values' in v) hit = groupHolds(v as CohortPropertyGroup, ctx, seen);
    else {
      const f = v as PropertyFilter;
      if (f.type === 'behavioral') throw new CohortUnavailable(-1);
      hit = f.type === 'cohort' ? inCohort(f, ctx, seen) : matchProperty(f, ctx.personProperties, ctx.now);
      if (f.negation) hit = !hit;
    }
    if (any && hit) return true;
    if (!any && !hit) return false;
  }
  return !any;
}
