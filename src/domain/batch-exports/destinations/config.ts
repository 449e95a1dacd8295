import { validationError } from '../../../errors.js';

/** Python's names for JSON types, as PostHog's messages spell them. */
export type FieldType = 'str' | 'int' | 'bool' | 'list' | 'dict';

export interface FieldSpec {
  type: FieldType;
  /** Required on create (PATCH may omit it: the stored value stays). */
  required?: boolean;
  default?: unknown;
  /** Stored encrypted and never shown in responses. */
  secret?: boolean;
  /** Accepts null as well. */
  nullable?: boolean;
}

export type FieldSpecs = Record<string, FieldSpec>;

/** Fields the workflows of every destination take; accepted in any config. */
export const BASE_FIELDS: FieldSpecs = {
  batch_export_id: { type: 'str', nullable: true },
  team_id: { type: 'int', nullable: true },
  interval: { type: 'str', nullable: true },
  data_interval_end: { type: 'str', nullable: true },
  exclude_events: { type: 'list', nullable: true },
  include_events: { type: 'list', nullable: true },
  is_backfill: { type: 'bool', nullable: true },
  is_earliest_backfill: { type: 'bool', nullable: true },
  backfill_details: { type: 'dict', nullable: true },
  batch_export_model: { type: 'dict', nullable: true },
  batch_export_schema: { type: 'dict', nullable: true },
  integration_id: { type: 'int', nullable: true },
};

function pythonType(value: unknown): string {
  if (value === null) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return { string: 'str', boolean: 'bool', object: 'dict' }[typeof value as 'string'] ?? typeof value;
}

/** Strings that read as the wanted bool or int are taken, as PostHog's coercion does. */
function coerce(value: unknown, spec: FieldSpec): unknown {
  if (value === null && (spec.nullable || !spec.required)) return null;
  const got = pythonType(value);
  if (got === spec.type) return value;
  if (spec.type === 'bool' && typeof value === 'string') {
    if (/^(true|1|yes)$/i.test(value)) return true;
    if (/^(false|0|no)$/i.test(value)) return false;
  }
  if (spec.type === 'int' && typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) {
    return Number(value.trim());
  }
  if (spec.type === 'bool' && got === 'int' && (value === 0 || value === 1)) return value === 1;
  throw validationError(
    `Configuration has invalid type: got '${got}', expected '${spec.type}'`,
    'destination',
  );
}

/**
 * Checks a destination config against its fields: unknown keys, missing required ones (only when
 * `complete`, i.e. on create or once merged with what is stored), and types.
 */
export function checkConfig(raw: Record<string, unknown>, specs: FieldSpecs, complete: boolean) {
  const all = { ...BASE_FIELDS, ...specs };
  const unknown = Object.keys(raw)
    .filter((k) => !(k in all))
    .sort();
  if (unknown.length > 0) {
    throw validationError(
      `Configuration has unknown field/s: ${unknown.map((k) => `'${k}'`).join(', ')}`,
      'destination',
    );
  }
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(all)) {
    if (name in raw) out[name] = coerce(raw[name], spec);
  }
  if (complete) {
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.required && (out[name] === undefined || out[name] === null)) {
        throw validationError(`Configuration missing required field: '${name}'`, 'destination');
      }
    }
  }
  return out;
}

/** The config with defaults filled in, as a run sees it. */
export function withDefaults(config: Record<string, unknown>, specs: FieldSpecs) {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.default !== undefined) out[name] = spec.default;
  }
  for (const [name, value] of Object.entries(config))
    if (value !== undefined && value !== null) out[name] = value;
  return out;
}

/** Splits a config into what may be shown and what is sealed. */
export function splitSecrets(config: Record<string, unknown>, specs: FieldSpecs) {
  const open: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(config)) (specs[name]?.secret ? secret : open)[name] = value;
  return { open, secret };
}
