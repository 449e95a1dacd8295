import { invalidChoice, validationError } from '../../errors.js';

/**
 * Checks for nested filter JSON, answering as DRF would for a nested serializer field: the first
 * problem, with `attr` naming the path (`filters__filter_group__values__0__key`).
 */
export const at = (path: string, key: string | number) => (path ? `${path}__${key}` : String(key));

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function object(v: unknown, path: string): Record<string, unknown> {
  if (!isObject(v)) {
    const got = Array.isArray(v) ? 'list' : v === null ? 'NoneType' : typeof v;
    throw validationError(
      `Expected a dictionary of items but got type "${got}".`,
      path || null,
      'not_a_dict',
    );
  }
  return v;
}

export function list(v: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(v)) {
    throw validationError(`Expected a list of items but got type "${typeof v}".`, path || null, 'not_a_list');
  }
  if (v.length > max) {
    throw validationError(`Ensure this field has no more than ${max} elements.`, path || null, 'max_length');
  }
  return v;
}

export function string(v: unknown, path: string, max = 1000): string {
  if (typeof v !== 'string') throw validationError('Not a valid string.', path || null);
  if (v.length > max) {
    throw validationError(
      `Ensure this field has no more than ${max} characters.`,
      path || null,
      'max_length',
    );
  }
  return v;
}

export function required<T>(v: T | undefined, path: string): T {
  if (v === undefined) throw validationError('This field is required.', path || null, 'required');
  return v;
}

export function number(v: unknown, path: string): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) {
    throw validationError('A valid number is required.', path || null);
  }
  return n;
}

export function boolean(v: unknown, path: string): boolean {
  if (typeof v !== 'boolean') throw validationError('Must be a valid boolean.', path || null);
  return v;
}

export function choice<T extends string>(v: unknown, allowed: readonly T[], path: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalidChoice(v, allowed, path || null);
  }
  return v as T;
}

export const unsupported = (what: string, path: string) =>
  validationError(`${what} is not supported by Burrow yet.`, path || null);

/** A filter value as text: numbers and booleans as they print. */
export const scalar = (v: unknown, path: string): string => {
  if (typeof v === 'string') return string(v, path);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw validationError('Not a valid string.', path);
};
