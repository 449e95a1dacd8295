import { RegexTooCostly } from '../regex/re2.js';
import { type CohortPropertyGroup, type CohortState, CohortUnavailable } from './cohorts.js';
import { compileProperty } from './compiled-property.js';
import { flagHasher, hashMemo, holdoutHash, variantOf } from './hash.js';
import { matchProperty } from './properties.js';
import type {
  ConditionGroup,
  FlagDefinition,
  FlagReason,
  FlagResult,
  PropertyFilter,
  Variant,
} from './types.js';

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
  /**
   * Bucketing hashes of `distinctId` by compiled flag slot (rollout at 2·slot, variant at
   * 2·slot + 1, -1 until computed), from the compiled set (`CompiledFlagSet`); absent or null:
   * the shared memo (`hashMemo`).
   */
  hashSlots?: Float64Array | null;
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

/**
 * The result of a flag for a (enabled, variant, reason): one frozen object per compiled flag and
 * outcome, shared by every request until the definition is replaced (a change makes a new one).
 * Evaluating allocates nothing per flag, and `flagsJson` writes each outcome's JSON once.
 */
function result(c: CompiledFlag, enabled: boolean, variant: string | null, why: FlagReason): FlagResult {
  const flag = c.flag;
  const known = c.outcomes;
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

/**
 * A flag definition made ready to evaluate: its conditions' filters turned into matchers, its
 * rollouts into thresholds, its variants into a table, its outcomes' shared results at hand.
 * Built once per definition (a change makes a new definition, so a new compiled flag); every
 * request then evaluates without re-reading the filters document.
 */
export interface CompiledFlag {
  readonly flag: FlagDefinition;
  /** Its place in the project's compiled set: where its hashes live in `EvaluationContext.hashSlots`. */
  readonly slot: number;
  readonly aggregation: number | null;
  readonly superGroup: CompiledCondition | null;
  /** The super condition's property keys: it decides only when the person has them all. */
  readonly superKeys: readonly string[];
  readonly holdout: { share: number; variant: string } | null;
  readonly conditions: readonly CompiledCondition[];
  readonly variants: readonly Variant[];
  readonly outcomes: Outcomes;
  /** `flagHash` with this flag's key packed once. */
  readonly hash: (identifier: string, salt: '' | 'variant') => number;
}

interface CompiledCondition {
  readonly index: number;
  readonly aggregation: number | null;
  readonly filters: ReadonlyArray<(props: Record<string, unknown>, ctx: EvaluationContext) => boolean>;
  /** rollout_percentage / 100, compared with the bucketing hash. */
  readonly threshold: number;
  /** The condition's variant override when the flag has that variant, else null. */
  readonly variant: string | null;
}

const compiledByDefinition = new WeakMap<FlagDefinition, CompiledFlag>();

/** The definition compiled, remembered with it (slot -1: hashes go through the shared memo). */
export function compiled(flag: FlagDefinition): CompiledFlag {
  let c = compiledByDefinition.get(flag);
  if (c === undefined) {
    c = compileFlag(flag, -1);
    compiledByDefinition.set(flag, c);
  }
  return c;
}

export function compileFlag(flag: FlagDefinition, slot: number): CompiledFlag {
  const filters = flag.filters;
  const aggregation = filters.aggregation_group_type_index ?? null;
  const variants = filters.multivariate?.variants ?? [];
  const condition = (group: ConditionGroup, index: number, flagAggregation: number | null, own = true) => {
    const agg =
      own && group.aggregation_group_type_index !== undefined
        ? group.aggregation_group_type_index
        : flagAggregation;
    return {
      index,
      aggregation: agg,
      filters: (group.properties ?? []).map((f) => compileFilter(f, agg)),
      threshold: (group.rollout_percentage ?? 100) / 100,
      variant: group.variant && variants.some((v) => v.key === group.variant) ? group.variant : null,
    };
  };
  const superGroup = filters.super_groups?.[0];
  const holdout = filters.holdout;
  return {
    flag,
    slot,
    aggregation,
    // The super condition is for persons: with a group aggregation it is not consulted.
    superGroup: superGroup && aggregation === null ? condition(superGroup, 0, null, false) : null,
    superKeys: (superGroup?.properties ?? []).map((p) => p.key),
    holdout: holdout
      ? {
          share: Math.min(100, Math.max(0, holdout.exclusion_percentage)),
          variant: `holdout-${holdout.id}`,
        }
      : null,
    conditions: (filters.groups ?? []).map((g, i) => condition(g, i, aggregation)),
    variants,
    outcomes: { off: new Map(), on: new Map() },
    hash: flagHasher(flag.key),
  };
}

function compileFilter(
  filter: PropertyFilter,
  aggregation: number | null,
): (props: Record<string, unknown>, ctx: EvaluationContext) => boolean {
  if (filter.type === 'cohort') return (_props, ctx) => inCohort(filter, ctx, new Set());
  const matcher = compileProperty(filter);
  if (filter.type === 'group' && filter.group_type_index != null && filter.group_type_index !== aggregation) {
    const index = String(filter.group_type_index);
    return (_props, ctx) => {
      const name = ctx.groupTypeMapping[index];
      return matcher((name && ctx.groupProperties[name]) || {}, ctx.now);
    };
  }
  if (filter.type === 'person' && aggregation !== null)
    return (_props, ctx) => matcher(ctx.personProperties, ctx.now);
  return (props, ctx) => matcher(props, ctx.now);
}

/** The identifier a person flag is bucketed by: the continuity key when the flag asks for one. */
function personBucket(flag: FlagDefinition, ctx: EvaluationContext): string {
  if (!flag.ensureExperienceContinuity) return ctx.distinctId;
  return ctx.hashKeyOverrides.get(flag.key) ?? ctx.anonDistinctId ?? ctx.distinctId;
}

/**
 * The bucketing hash (`salt` '' for the rollout, 'variant' for the variant). The request's own
 * distinct id, in a compiled set, reads and fills the request's slots (an index, no key to
 * build); other identifiers (groups, continuity keys) and lone definitions use the shared memo.
 */
function bucketHash(c: CompiledFlag, bucket: string, variant: boolean, ctx: EvaluationContext): number {
  const slots = ctx.hashSlots;
  if (c.slot < 0 || slots == null || bucket !== ctx.distinctId)
    return hashMemo.hash(c.flag.key, bucket, variant ? 'variant' : '');
  const at = 2 * c.slot + (variant ? 1 : 0);
  let h = slots[at] as number;
  if (h < 0) {
    h = c.hash(bucket, variant ? 'variant' : '');
    slots[at] = h;
  }
  return h;
}

/**
 * One flag for one person (or group), following PostHog's matcher: condition sets in order, the
 * first whose properties all hold and whose rollout admits the bucketing hash wins; its variant is
 * the override when it names a variant, else the one the variant hash falls in. A flag aggregated
 * by a group type is bucketed by the request's key for that group.
 */
export function evaluateFlag(flag: FlagDefinition, ctx: EvaluationContext): FlagResult {
  return evaluateCompiled(compiled(flag), ctx);
}

export function evaluateCompiled(c: CompiledFlag, ctx: EvaluationContext): FlagResult {
  const flag = c.flag;
  if (!flag.active) return result(c, false, null, reason('flag_disabled', null));
  try {
    return match(c, ctx);
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

function match(c: CompiledFlag, ctx: EvaluationContext): FlagResult {
  const flag = c.flag;
  const flagAggregation = c.aggregation;
  if (flagAggregation !== null && groupKey(flagAggregation, ctx) === null) {
    return result(c, false, null, reason('no_group_type', null));
  }

  const superGroup = c.superGroup;
  if (superGroup !== null) {
    const keys = c.superKeys;
    // Early access enrolment: decided by the enrolment property alone, when the person has it.
    if (keys.length > 0 && keys.every((k) => Object.hasOwn(ctx.personProperties, k))) {
      const bucket = personBucket(flag, ctx);
      const hit = conditionHolds(c, superGroup, ctx.personProperties, bucket, ctx) === 'match';
      return hit
        ? result(c, true, chooseVariant(c, superGroup, bucket, ctx), reason('super_condition_value', 0))
        : result(c, false, null, reason('super_condition_value', 0));
    }
  }

  // An experiment's holdout, after the super condition and before the release conditions, as
  // PostHog's matcher orders them: the held-out share gets `holdout-<id>` instead of a variant.
  // The hash is seeded with "holdout-" alone, not the flag key, so the same users are held out of
  // every experiment that shares the holdout.
  const holdout = c.holdout;
  if (holdout) {
    const subject = flagAggregation === null ? ctx.distinctId : (groupKey(flagAggregation, ctx) ?? '');
    if (holdout.share >= 100 || holdoutHash(subject) <= holdout.share / 100)
      return result(c, true, holdout.variant, reason('holdout_condition_value', null));
  }

  let best = 'no_condition_match';
  let bestIndex: number | null = null;
  const conditions = c.conditions;
  for (let i = 0; i < conditions.length; i++) {
    const condition = conditions[i] as CompiledCondition;
    const aggregation = condition.aggregation;
    let bucket: string;
    let props: Record<string, unknown>;
    if (aggregation !== null) {
      const key = groupKey(aggregation, ctx);
      if (key === null) {
        if ((RANK.no_group_type as number) >= (RANK[best] as number)) {
          best = 'no_group_type';
          bestIndex = i;
        }
        continue;
      }
      bucket = key;
      props = ctx.groupProperties[ctx.groupTypeMapping[String(aggregation)] as string] ?? {};
    } else {
      bucket = personBucket(flag, ctx);
      props = ctx.personProperties;
    }
    const outcome = conditionHolds(c, condition, props, bucket, ctx);
    if (outcome === 'match') {
      return result(c, true, chooseVariant(c, condition, bucket, ctx), reason('condition_match', i));
    }
    if ((RANK[outcome] as number) >= (RANK[best] as number)) {
      best = outcome;
      bestIndex = i;
    }
  }
  return result(c, false, null, reason(best, bestIndex));
}

function groupKey(index: number, ctx: EvaluationContext): string | null {
  const name = ctx.groupTypeMapping[String(index)];
  if (name === undefined) return null;
  const key = ctx.groups[name];
  return key === undefined || key === '' ? null : key;
}

function chooseVariant(
  c: CompiledFlag,
  condition: CompiledCondition,
  bucket: string,
  ctx: EvaluationContext,
): string | null {
  if (c.variants.length === 0) return null;
  if (condition.variant !== null) return condition.variant;
  return variantOf(bucketHash(c, bucket, true, ctx), c.variants);
}

function conditionHolds(
  c: CompiledFlag,
  condition: CompiledCondition,
  props: Record<string, unknown>,
  bucket: string,
  ctx: EvaluationContext,
): 'match' | 'no_condition_match' | 'out_of_rollout_bound' {
  const filters = condition.filters;
  for (let i = 0; i < filters.length; i++) {
    if (!(filters[i] as (p: Record<string, unknown>, x: EvaluationContext) => boolean)(props, ctx))
      return 'no_condition_match';
  }
  // A full rollout admits every hash (at most 1: 2^60 - 1 rounds to 2^60 as a double); no SHA-1.
  if (condition.threshold >= 1) return 'match';
  return bucketHash(c, bucket, false, ctx) <= condition.threshold ? 'match' : 'out_of_rollout_bound';
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
