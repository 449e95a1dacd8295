import { randomBytes } from 'node:crypto';
import { validationError } from '../../errors.js';

/** Shared field rules of insights, dashboards and annotations (PostHog's serializers' limits). */

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** PostHog's short id: 8 alphanumeric characters (clients recognise it by that shape). */
export function newShortId(): string {
  const bytes = randomBytes(8);
  let out = '';
  // 256 is not a multiple of 62: the slight bias is irrelevant for an identifier that is not a secret.
  for (const b of bytes) out += ALPHANUM[b % ALPHANUM.length];
  return out;
}

export const MAX_TAGS = 100;
const MAX_TAG = 255;

/** Tags as PostHog's tagify stores them: trimmed, lowercase, no repeats. */
export function tagify(tags: unknown, attr = 'tags'): string[] {
  if (!Array.isArray(tags)) throw validationError('Expected a list of items.', attr, 'not_a_list');
  if (tags.length > MAX_TAGS)
    throw validationError(`Ensure this field has no more than ${MAX_TAGS} elements.`, attr);
  for (const t of tags) {
    if (typeof t !== 'string') throw validationError('Not a valid string.', attr, 'invalid');
    if (t.length > MAX_TAG)
      throw validationError(`Ensure this field has no more than ${MAX_TAG} characters.`, attr, 'max_length');
  }
  return [...new Set((tags as string[]).map((t) => t.trim().toLowerCase()).filter(Boolean))];
}

/** A nullable free text field with a length bound. */
export function optionalText(value: unknown, attr: string, max: number): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw validationError('Not a valid string.', attr, 'invalid');
  if (value.length > max)
    throw validationError(`Ensure this field has no more than ${max} characters.`, attr, 'max_length');
  return value;
}

export function boolField(value: unknown, attr: string): boolean {
  if (typeof value !== 'boolean') throw validationError('Must be a valid boolean.', attr, 'invalid');
  return value;
}

/** Ids in paths are positive integers; anything else names nothing. */
export const MAX_ID = 2_147_483_647;
export const isId = (raw: string) => /^\d{1,10}$/.test(raw) && Number(raw) > 0 && Number(raw) <= MAX_ID;

/** JSON size bound for stored objects (queries, filters, layouts). */
export function jsonSize(value: unknown, attr: string, max: number): void {
  if (JSON.stringify(value ?? null).length > max)
    throw validationError(`Too large: at most ${max} characters of JSON.`, attr, 'max_length');
}

export function jsonDepth(value: unknown, attr: string, max = 32): void {
  const walk = (x: unknown, depth: number): void => {
    if (depth > max) throw validationError(`Nested too deeply (at most ${max} levels).`, attr);
    if (typeof x === 'object' && x !== null) for (const v of Object.values(x)) walk(v, depth + 1);
  };
  walk(value, 0);
}
