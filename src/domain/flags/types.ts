/**
 * PostHog's feature flag filters document, as stored and as SDKs receive it for local evaluation.
 * Everything is optional on read: old flags and hand-written ones omit fields.
 */
export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string | null;
  type?: string;
  group_type_index?: number | null;
  negation?: boolean;
}

export interface ConditionGroup {
  properties?: PropertyFilter[] | null;
  rollout_percentage?: number | null;
  variant?: string | null;
  aggregation_group_type_index?: number | null;
  description?: string | null;
}

export interface Variant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
}

export interface FlagFilters {
  groups?: ConditionGroup[];
  multivariate?: { variants: Variant[] } | null;
  payloads?: Record<string, unknown>;
  aggregation_group_type_index?: number | null;
  super_groups?: ConditionGroup[];
  /** An experiment's holdout, as PostHog writes it on the flag: this share of users is held out. */
  holdout?: { id: number; exclusion_percentage: number } | null;
}

/** What evaluation needs of a flag (a subset of the stored record). */
export interface FlagDefinition {
  id: number;
  key: string;
  version: number;
  active: boolean;
  ensureExperienceContinuity: boolean;
  filters: FlagFilters;
}

export type FlagValue = boolean | string;

export interface FlagReason {
  code: string;
  condition_index: number | null;
  description: string | null;
}

export interface FlagResult {
  key: string;
  enabled: boolean;
  variant: string | null;
  /** Set when the flag could not be evaluated (e.g. a cohort without a cohort source). */
  failed: boolean;
  reason: FlagReason;
  payload: unknown;
  id: number;
  version: number;
}
