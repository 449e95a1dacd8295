import { validationError } from '../../errors.js';
import { checkRegex } from '../regex/check.js';
import { PROPERTY_OPERATORS, parseDate } from './properties.js';
import type { ConditionGroup, FlagFilters, PropertyFilter, Variant } from './types.js';

/** Limits on a flag's filters (PostHog sets none but the 1 000 values per list; these bound the work). */
export const LIMITS = {
  keyLength: 400,
  groups: 100,
  propertiesPerGroup: 100,
  variants: 100,
  valuesPerList: 1_000,
  propertyKeyLength: 1_000,
  stringValueLength: 10_000,
  payloadBytes: 100_000,
};

const KEY = /^[a-zA-Z0-9_-]+$/;
const OPERATORS = new Set<string>([...PROPERTY_OPERATORS, 'in', 'not_in']);
const TEXT_OPERATORS = new Set([
  'regex',
  'icontains',
  'not_regex',
  'not_icontains',
  'gte',
  'lte',
  'gt',
  'lt',
]);

const invalid = (detail: string, code = 'invalid_input') => validationError(detail, 'filters', code);

export function checkKey(value: unknown): string {
  if (typeof value !== 'string') throw validationError('Not a valid string.', 'key', 'invalid');
  if (value === '') throw validationError('This field may not be blank.', 'key', 'blank');
  if (value.length > LIMITS.keyLength)
    throw validationError(
      `Ensure this field has no more than ${LIMITS.keyLength} characters.`,
      'key',
      'max_length',
    );
  if (!KEY.test(value))
    throw validationError(
      'Only letters, numbers, hyphens (-) & underscores (_) are allowed.',
      'key',
      'invalid_key',
    );
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const isScalar = (v: unknown) =>
  v === null ||
  typeof v === 'string' ||
  typeof v === 'boolean' ||
  (typeof v === 'number' && Number.isFinite(v));

function checkValue(p: PropertyFilter): void {
  const v = p.value;
  if (Array.isArray(v)) {
    if (v.length > LIMITS.valuesPerList)
      throw invalid(
        `Property group expressions of type ${p.key} cannot contain more than ${LIMITS.valuesPerList} values.`,
      );
    if (!v.every(isScalar))
      throw invalid(
        'Filters are not valid (property values must be strings, numbers, booleans or lists of them)',
      );
    return;
  }
  if (v !== undefined && !isScalar(v))
    throw invalid(
      'Filters are not valid (property values must be strings, numbers, booleans or lists of them)',
    );
  if (typeof v === 'string' && v.length > LIMITS.stringValueLength)
    throw invalid(
      `Filters are not valid (a property value is longer than ${LIMITS.stringValueLength} characters)`,
    );
}

function checkProperty(raw: unknown, aggregation: number | null): PropertyFilter {
  if (!isObject(raw)) throw invalid('Filters are not valid (each property must be an object)');
  const p = raw as unknown as PropertyFilter;
  if (typeof p.key !== 'string' || p.key === '' || p.key.length > LIMITS.propertyKeyLength)
    throw invalid('Filters are not valid (each property needs a key)');
  const type = p.type ?? 'person';
  const operator = p.operator ?? 'exact';
  if (typeof operator !== 'string' || !OPERATORS.has(operator))
    throw invalid(`Filters are not valid (unknown operator: ${String(p.operator)})`, 'invalid_operator');
  if (aggregation === null) {
    if (!['person', 'cohort', 'flag'].includes(type))
      throw invalid('Filters are not valid (can only use person, cohort, and flag properties)');
  } else if (type !== 'group' || p.group_type_index !== aggregation) {
    throw invalid('Filters are not valid (can only use group properties)');
  }
  if (type === 'flag')
    throw invalid('Flag dependencies (properties of type "flag") are not supported yet.', 'not_supported');
  if ((operator === 'in' || operator === 'not_in') && type !== 'cohort')
    throw invalid(
      `The '${operator}' operator is only valid for cohort properties, not '${type}' properties.`,
      'invalid_operator',
    );
  if (type === 'cohort' && !Number.isInteger(Number(p.value)))
    throw invalid(`Cohort with id ${String(p.value)} does not exist`, 'cohort_does_not_exist');
  checkValue(p);
  if (operator !== 'is_set' && operator !== 'is_not_set' && (p.value === undefined || p.value === null))
    throw invalid(`Filters are not valid (operator ${operator} needs a value)`, 'invalid_value');
  if (TEXT_OPERATORS.has(operator) && typeof p.value !== 'string')
    throw invalid(`Invalid value for operator ${operator}: ${JSON.stringify(p.value)}`, 'invalid_value');
  if (
    (operator === 'is_date_before' || operator === 'is_date_after' || operator === 'is_date_exact') &&
    parseDate(p.value, new Date()) === null
  )
    throw invalid(`Invalid date value: ${String(p.value)}`, 'invalid_date');
  if (operator === 'regex' || operator === 'not_regex')
    checkRegex(p.value as string, 'filters', 'invalid_value');
  return p;
}

function checkPercentage(v: unknown, what: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100)
    throw invalid(`Filters are not valid (${what} must be a number between 0 and 100)`);
  return v;
}

function checkVariants(raw: unknown): Variant[] | null {
  if (raw === null || raw === undefined) return null;
  if (!isObject(raw) || !Array.isArray(raw.variants))
    throw invalid('Filters are not valid (multivariate needs a list of variants)');
  const list = raw.variants;
  if (list.length === 0) return null;
  if (list.length > LIMITS.variants)
    throw invalid(`Filters are not valid (at most ${LIMITS.variants} variants)`);
  const seen = new Set<string>();
  const variants = list.map((v) => {
    if (!isObject(v) || typeof v.key !== 'string' || !KEY.test(v.key))
      throw invalid(
        'Filters are not valid (each variant needs a key of letters, numbers, hyphens and underscores)',
      );
    if (seen.has(v.key)) throw invalid(`Filters are not valid (variant ${v.key} is listed twice)`);
    seen.add(v.key);
    const pct = checkPercentage(v.rollout_percentage, 'a variant rollout percentage') ?? 0;
    return { ...(v as object), key: v.key, rollout_percentage: pct } as Variant;
  });
  const sum = variants.reduce((s, v) => s + v.rollout_percentage, 0);
  if (Math.abs(sum - 100) > 1e-9)
    throw invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.');
  return variants;
}

function checkPayloads(raw: unknown, variants: Variant[] | null): Record<string, unknown> {
  if (raw === undefined || raw === null) return {};
  if (!isObject(raw)) throw invalid('Payloads must be passed as a dictionary');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    let stored = value;
    if (isObject(value) || Array.isArray(value)) stored = JSON.stringify(value);
    else if (typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        throw invalid('Payload value is not valid JSON');
      }
    }
    if (JSON.stringify(stored).length > LIMITS.payloadBytes)
      throw invalid(`Filters are not valid (a payload is larger than ${LIMITS.payloadBytes} bytes)`);
    if (stored === null) continue;
    out[key] = stored;
  }
  const keys = Object.keys(out);
  if (variants) {
    const names = new Set(variants.map((v) => v.key));
    if (!keys.every((k) => names.has(k)))
      throw invalid('Payload keys must match a variant key for multivariate flags');
  } else if (keys.some((k) => k !== 'true')) {
    throw invalid("Payload keys must be 'true' for boolean flags");
  }
  return out;
}

function checkAggregation(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > 4)
    throw invalid('Filters are not valid (aggregation_group_type_index must be 0 to 4)');
  return v as number;
}

/**
 * PostHog's filter rules (FeatureFlagSerializer.validate_filters), returning the document as it is
 * stored: payload objects become JSON text, as PostHog's UI sends them.
 */
export function checkFilters(raw: unknown, creating: boolean): FlagFilters {
  if (!isObject(raw)) throw invalid('Filters are not valid (expected an object)');
  const aggregation = checkAggregation(raw.aggregation_group_type_index);
  const rawGroups = raw.groups ?? [];
  if (!Array.isArray(rawGroups)) throw invalid('Filters are not valid (groups must be a list)');
  if (creating && rawGroups.length === 0)
    throw invalid('Feature flags must have at least one condition set (group).');
  if (rawGroups.length > LIMITS.groups)
    throw invalid(`Filters are not valid (at most ${LIMITS.groups} condition sets)`);
  const variants = checkVariants(raw.multivariate);
  const groups: ConditionGroup[] = rawGroups.map((g) => {
    if (!isObject(g)) throw invalid('Filters are not valid (each condition set must be an object)');
    const props = g.properties ?? [];
    if (!Array.isArray(props)) throw invalid('Filters are not valid (properties must be a list)');
    if (props.length > LIMITS.propertiesPerGroup)
      throw invalid(
        `Filters are not valid (at most ${LIMITS.propertiesPerGroup} properties per condition set)`,
      );
    const condAggregation =
      g.aggregation_group_type_index === undefined
        ? aggregation
        : checkAggregation(g.aggregation_group_type_index);
    const variant = g.variant ?? null;
    if (variant !== null && (typeof variant !== 'string' || !variants?.some((v) => v.key === variant)))
      throw invalid('Filters are not valid (variant override does not exist)');
    return {
      ...g,
      properties: props.map((p) => checkProperty(p, condAggregation)),
      rollout_percentage: checkPercentage(g.rollout_percentage, 'rollout_percentage'),
      variant,
    };
  });
  const out: FlagFilters = {
    ...raw,
    groups,
    multivariate: variants ? { ...(raw.multivariate as object), variants } : null,
    payloads: checkPayloads(raw.payloads, variants),
    aggregation_group_type_index: aggregation,
  };
  if (raw.holdout !== undefined && raw.holdout !== null) {
    const h = raw.holdout;
    if (
      !isObject(h) ||
      typeof h.id !== 'number' ||
      !Number.isSafeInteger(h.id) ||
      typeof h.exclusion_percentage !== 'number' ||
      !Number.isFinite(h.exclusion_percentage) ||
      h.exclusion_percentage < 0 ||
      h.exclusion_percentage > 100
    )
      throw invalid(
        'Filters are not valid (holdout needs an integer id and an exclusion_percentage from 0 to 100)',
      );
    out.holdout = { id: h.id, exclusion_percentage: h.exclusion_percentage };
  }
  if (raw.super_groups !== undefined) {
    if (!Array.isArray(raw.super_groups) || raw.super_groups.length > LIMITS.groups)
      throw invalid('Filters are not valid (super_groups must be a list)');
    out.super_groups = raw.super_groups.map((g) => {
      if (!isObject(g)) throw invalid('Filters are not valid (each condition set must be an object)');
      const props = Array.isArray(g.properties) ? g.properties : [];
      return {
        ...g,
        properties: props.map((p) => checkProperty(p, null)),
        rollout_percentage: checkPercentage(g.rollout_percentage, 'rollout_percentage'),
      };
    });
  }
  return out;
}
