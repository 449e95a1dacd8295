import { notFound, validationError } from '../../errors.js';
import {
  type ExperimentConfig,
  type ExperimentPatch,
  type ExperimentRecord,
  findExperiment,
  insertExperiment,
  listExperiments,
  updateExperiment,
} from '../../store/meta/experiments.js';
import {
  type FeatureFlagRecord,
  findFeatureFlag,
  findFeatureFlagByKey,
} from '../../store/meta/feature-flags.js';
import type { ProjectAccess } from '../access.js';
import { changeFlag, createFlag, type FlagDeps } from '../flags/flags.js';
import type { Principal } from '../principal.js';
import { linkedExtra } from './extras.js';

/** Writable fields of PostHog's experiment serializer that Burrow keeps. */
export interface ExperimentInput {
  name?: string;
  description?: string | null;
  feature_flag_key?: string;
  parameters?: Record<string, unknown> | null;
  metrics?: unknown[];
  metrics_secondary?: unknown[];
  saved_metrics_ids?: unknown[];
  exposure_criteria?: Record<string, unknown> | null;
  holdout_id?: number | null;
  type?: string;
  conclusion?: string | null;
  conclusion_comment?: string | null;
  stats_config?: Record<string, unknown> | null;
  filters?: Record<string, unknown>;
  start_date?: string | null;
  end_date?: string | null;
  archived?: boolean;
  deleted?: boolean;
}

export interface ExperimentView extends ExperimentRecord {
  flag: FeatureFlagRecord;
}

interface Variant {
  key: string;
  name?: string;
  rollout_percentage: number;
}

/** PostHog's default: a control and a test, half each. */
const DEFAULT_VARIANTS: Variant[] = [
  { key: 'control', name: 'Control Group', rollout_percentage: 50 },
  { key: 'test', name: 'Test Variant', rollout_percentage: 50 },
];
const MAX_VARIANTS = 20;
const MAX_METRICS = 50;
const VARIANT_KEY = /^[A-Za-z0-9_-]{1,200}$/;

/** Variants as PostHog requires them: a `control`, unique keys, whole percentages summing to 100. */
export function checkVariants(raw: unknown): Variant[] {
  if (!Array.isArray(raw) || raw.length < 2 || raw.length > MAX_VARIANTS)
    throw validationError(`An experiment needs between 2 and ${MAX_VARIANTS} variants.`, 'parameters');
  const seen = new Set<string>();
  const variants = raw.map((v): Variant => {
    const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
    const key = o.key;
    const pct = o.rollout_percentage;
    if (typeof key !== 'string' || !VARIANT_KEY.test(key))
      throw validationError('Each variant needs a key of letters, digits, "_" or "-".', 'parameters');
    if (seen.has(key)) throw validationError(`Variant key "${key}" is repeated.`, 'parameters');
    seen.add(key);
    if (typeof pct !== 'number' || !Number.isFinite(pct) || pct < 0 || pct > 100)
      throw validationError('Each variant needs a rollout_percentage from 0 to 100.', 'parameters');
    return { key, ...(typeof o.name === 'string' ? { name: o.name } : {}), rollout_percentage: pct };
  });
  if (!seen.has('control'))
    throw validationError('Feature flag variants must contain a control variant', 'parameters');
  const sum = variants.reduce((s, v) => s + v.rollout_percentage, 0);
  if (Math.abs(sum - 100) > 1e-9)
    throw validationError(`Variant rollout percentages must sum to 100 (they sum to ${sum}).`, 'parameters');
  return variants;
}

function checkMetrics(raw: unknown, attr: string): unknown[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.length > MAX_METRICS)
    throw validationError(`At most ${MAX_METRICS} metrics, as a list.`, attr);
  for (const m of raw) {
    const o = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
    if (o.kind !== 'ExperimentMetric' || !['mean', 'funnel', 'ratio'].includes(String(o.metric_type)))
      throw validationError(
        'Each metric must be an ExperimentMetric with metric_type mean, funnel or ratio.',
        attr,
      );
  }
  return raw;
}

/**
 * What PostHog writes into the flag's filters for the experiment's holdout: its id and the share
 * held out (the holdout's first group's percentage), or null without one. An unknown id is
 * refused as DRF refuses a missing primary key.
 */
async function holdoutOfFlag(
  deps: FlagDeps,
  teamId: number,
  holdoutId: number | null | undefined,
): Promise<{ id: number; exclusion_percentage: number } | null> {
  if (holdoutId === null || holdoutId === undefined) return null;
  const h = await linkedExtra(deps.meta, 'experiment_holdouts', teamId, holdoutId);
  if (!h)
    throw validationError(
      `Invalid pk "${holdoutId}" - object does not exist.`,
      'holdout_id',
      'does_not_exist',
    );
  const groups = (h.body.filters ?? []) as { rollout_percentage?: number }[];
  return { id: h.id, exclusion_percentage: groups[0]?.rollout_percentage ?? 0 };
}

function variantsOfFlag(flag: FeatureFlagRecord): Variant[] | null {
  const mv = (flag.filters as { multivariate?: { variants?: Variant[] } | null }).multivariate;
  return mv?.variants ?? null;
}

async function view(deps: FlagDeps, e: ExperimentRecord): Promise<ExperimentView> {
  const flag = await findFeatureFlag(deps.meta, e.teamId, e.featureFlagId);
  if (!flag) throw notFound();
  return { ...e, flag };
}

function checkDate(value: string | null | undefined, attr: string): string | null | undefined {
  if (value === undefined || value === null) return value;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw validationError('Enter a valid date and time.', attr);
  return new Date(t).toISOString();
}

export async function createExperiment(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  input: ExperimentInput,
): Promise<ExperimentView> {
  const name = input.name?.trim();
  if (!name) throw validationError('This field is required.', 'name', 'required');
  if (!input.feature_flag_key)
    throw validationError('This field is required.', 'feature_flag_key', 'required');
  const parameters = { ...(input.parameters ?? {}) };
  const holdout = await holdoutOfFlag(deps, access.team.id, input.holdout_id);
  const existing = await findFeatureFlagByKey(deps.meta, access.team.id, input.feature_flag_key);
  let flag: FeatureFlagRecord;
  if (existing) {
    // Linking an existing flag: it must already be multivariate with a control (PostHog's rule).
    const variants = variantsOfFlag(existing);
    if (!variants)
      throw validationError(
        'Feature flag is not eligible for experiments: it must be multivariate.',
        'feature_flag_key',
      );
    checkVariants(variants);
    parameters.feature_flag_variants = variants;
    flag = holdout
      ? await changeFlag(deps, access, principal, existing.id, { filters: { ...existing.filters, holdout } })
      : existing;
  } else {
    const variants = checkVariants(parameters.feature_flag_variants ?? DEFAULT_VARIANTS);
    parameters.feature_flag_variants = variants;
    const rollout = typeof parameters.rollout_percentage === 'number' ? parameters.rollout_percentage : 100;
    // A draft's flag is off until launch, as PostHog creates it.
    flag = await createFlag(deps, access, principal, {
      key: input.feature_flag_key,
      name: `Feature Flag for Experiment ${name}`,
      active: Boolean(input.start_date),
      filters: {
        groups: [{ properties: [], rollout_percentage: rollout }],
        multivariate: { variants },
        aggregation_group_type_index: null,
        ...(holdout ? { holdout } : {}),
      },
    });
  }
  const config: ExperimentConfig = {
    parameters,
    metrics: checkMetrics(input.metrics, 'metrics'),
    metrics_secondary: checkMetrics(input.metrics_secondary, 'metrics_secondary'),
    saved_metrics_ids: Array.isArray(input.saved_metrics_ids) ? input.saved_metrics_ids.slice(0, 50) : [],
    exposure_criteria: input.exposure_criteria ?? null,
    holdout_id: input.holdout_id ?? null,
    type: input.type ?? 'product',
    conclusion: input.conclusion ?? null,
    conclusion_comment: input.conclusion_comment ?? null,
    stats_config: input.stats_config ?? null,
    filters: input.filters ?? {},
  };
  const at = deps.now().toISOString();
  const id = await insertExperiment(deps.meta, {
    teamId: access.team.id,
    name,
    description: input.description ?? '',
    featureFlagId: flag.id,
    startDate: checkDate(input.start_date, 'start_date') ?? null,
    endDate: checkDate(input.end_date, 'end_date') ?? null,
    config,
    createdAt: at,
    createdBy: principal.user.id,
    updatedAt: at,
  });
  return getExperiment(deps, access, id);
}

export async function getExperiment(
  deps: FlagDeps,
  access: ProjectAccess,
  id: number,
): Promise<ExperimentView> {
  const e = await findExperiment(deps.meta, access.team.id, id);
  if (!e) throw notFound();
  return view(deps, e);
}

export async function listExperimentViews(
  deps: FlagDeps,
  access: ProjectAccess,
  page: { limit: number; offset: number; archived?: boolean | undefined },
): Promise<{ count: number; results: ExperimentView[] }> {
  const { count, results } = await listExperiments(deps.meta, access.team.id, page);
  const views: ExperimentView[] = [];
  for (const e of results) views.push(await view(deps, e));
  return { count, results: views };
}

const sameVariants = (a: unknown, b: unknown) =>
  JSON.stringify((a as Variant[] | undefined)?.map((v) => [v.key, v.rollout_percentage])) ===
  JSON.stringify((b as Variant[] | undefined)?.map((v) => [v.key, v.rollout_percentage]));

/**
 * PATCH: launch is setting `start_date` (the flag goes live), stop is setting `end_date`, reset
 * is clearing both (PostHog's "reset to draft"). Variants are fixed once launched.
 */
export async function changeExperiment(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  id: number,
  input: ExperimentInput,
): Promise<ExperimentView> {
  const current = await findExperiment(deps.meta, access.team.id, id);
  if (!current) throw notFound();
  const patch: ExperimentPatch = { updatedAt: deps.now().toISOString() };
  const config: ExperimentConfig = { ...current.config };
  if (input.name !== undefined) {
    if (!input.name.trim()) throw validationError('This field may not be blank.', 'name', 'blank');
    patch.name = input.name.trim();
  }
  if (input.description !== undefined) patch.description = input.description ?? '';
  if (input.feature_flag_key !== undefined) {
    const flag = await findFeatureFlag(deps.meta, access.team.id, current.featureFlagId);
    if (flag && input.feature_flag_key !== flag.key)
      throw validationError("Can't update keys of an experiment's feature flag.", 'feature_flag_key');
  }
  const launched = current.startDate !== null;
  let newVariants: Variant[] | null = null;
  if (input.parameters !== undefined && input.parameters !== null) {
    const next = input.parameters.feature_flag_variants;
    if (next !== undefined && !sameVariants(next, current.config.parameters.feature_flag_variants)) {
      if (launched)
        throw validationError(
          "Can't update feature_flag_variants on Experiment once it has launched: exposures already counted would no longer match their variant.",
          'parameters',
        );
      newVariants = checkVariants(next);
    }
    config.parameters = {
      ...current.config.parameters,
      ...input.parameters,
      ...(newVariants ? { feature_flag_variants: newVariants } : {}),
    };
  }
  if (input.metrics !== undefined) config.metrics = checkMetrics(input.metrics, 'metrics');
  if (input.metrics_secondary !== undefined)
    config.metrics_secondary = checkMetrics(input.metrics_secondary, 'metrics_secondary');
  if (input.saved_metrics_ids !== undefined)
    config.saved_metrics_ids = Array.isArray(input.saved_metrics_ids)
      ? input.saved_metrics_ids.slice(0, 50)
      : [];
  if (input.exposure_criteria !== undefined) config.exposure_criteria = input.exposure_criteria;
  let holdoutChange: { holdout: { id: number; exclusion_percentage: number } | null } | null = null;
  if (input.holdout_id !== undefined) {
    holdoutChange = { holdout: await holdoutOfFlag(deps, access.team.id, input.holdout_id) };
    config.holdout_id = input.holdout_id;
  }
  if (input.type !== undefined) config.type = input.type;
  if (input.conclusion !== undefined) config.conclusion = input.conclusion;
  if (input.conclusion_comment !== undefined) config.conclusion_comment = input.conclusion_comment;
  if (input.stats_config !== undefined) config.stats_config = input.stats_config;
  if (input.filters !== undefined) config.filters = input.filters;
  patch.config = config;
  const start = checkDate(input.start_date, 'start_date');
  const end = checkDate(input.end_date, 'end_date');
  if (start !== undefined) patch.startDate = start;
  if (end !== undefined) patch.endDate = end;
  const startAfter = start !== undefined ? start : current.startDate;
  const endAfter = end !== undefined ? end : current.endDate;
  if (endAfter && !startAfter)
    throw validationError('An experiment cannot end before it has started.', 'end_date');
  if (input.archived !== undefined) patch.archived = input.archived;
  if (input.deleted !== undefined) patch.deleted = input.deleted;
  await updateExperiment(deps.meta, access.team.id, id, patch);
  // The flag follows: new variants before launch; turned on at launch.
  const flagChange: { filters?: unknown; active?: boolean } = {};
  if (newVariants || holdoutChange) {
    const flag = await findFeatureFlag(deps.meta, access.team.id, current.featureFlagId);
    if (flag)
      flagChange.filters = {
        ...flag.filters,
        ...(newVariants ? { multivariate: { variants: newVariants } } : {}),
        ...(holdoutChange ?? {}),
      };
  }
  if (!launched && startAfter) flagChange.active = true;
  if (Object.keys(flagChange).length > 0)
    await changeFlag(deps, access, principal, current.featureFlagId, flagChange);
  // A PATCH with `deleted: true` answers with what was deleted, as PostHog does.
  if (patch.deleted) return view(deps, { ...current, ...patch, config, deleted: true } as ExperimentRecord);
  return getExperiment(deps, access, id);
}

/** A soft delete, as PostHog's; the flag stays (it may serve users still). */
export async function deleteExperiment(deps: FlagDeps, access: ProjectAccess, id: number): Promise<void> {
  const current = await findExperiment(deps.meta, access.team.id, id);
  if (!current) throw notFound();
  await updateExperiment(deps.meta, access.team.id, id, {
    deleted: true,
    updatedAt: deps.now().toISOString(),
  });
}

/**
 * A holdout's share changed: the flags of the experiments using it are rewritten with the new
 * `filters.holdout`, as PostHog's holdout update does, so `/flags` holds out the new share at once.
 */
export async function syncHoldoutFlags(
  deps: FlagDeps,
  access: ProjectAccess,
  principal: Principal,
  holdoutId: number,
): Promise<void> {
  const holdout = await holdoutOfFlag(deps, access.team.id, holdoutId);
  const PAGE = 200;
  for (let offset = 0; ; offset += PAGE) {
    const { results } = await listExperiments(deps.meta, access.team.id, { limit: PAGE, offset });
    for (const e of results) {
      if (e.config.holdout_id !== holdoutId) continue;
      const flag = await findFeatureFlag(deps.meta, access.team.id, e.featureFlagId);
      if (flag && !flag.deleted)
        await changeFlag(deps, access, principal, flag.id, { filters: { ...flag.filters, holdout } });
    }
    if (results.length < PAGE) return;
  }
}
