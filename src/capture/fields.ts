import type { RawEvent } from './types.js';

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const MAX_DISTINCT_ID_CHARS = 200;

/**
 * PostHog's rule: `distinct_id` (or `$distinct_id`) at the top, else `properties.distinct_id`
 * (posthog-js puts it there); strings as they are, other values as JSON (numbers → `"42"`);
 * NUL characters removed; cut to 200 characters; empty or null is no distinct id.
 */
export function distinctIdOf(raw: RawEvent): string | undefined {
  const properties = isObject(raw.properties) ? raw.properties : {};
  const value = raw.distinct_id ?? raw.$distinct_id ?? properties.distinct_id;
  if (value === undefined || value === null) return undefined;
  let id = (typeof value === 'string' ? value : JSON.stringify(value)).replaceAll('\u0000', '');
  if (id.length > MAX_DISTINCT_ID_CHARS) id = Array.from(id).slice(0, MAX_DISTINCT_ID_CHARS).join('');
  return id === '' ? undefined : id;
}

const nonEmptyString = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** An event's own token: `token`, `$token` or `api_key` on the event, else `properties.token`. */
export function eventTokenOf(raw: RawEvent): string | undefined {
  const properties = isObject(raw.properties) ? raw.properties : {};
  return (
    nonEmptyString(raw.token) ??
    nonEmptyString(raw.$token) ??
    nonEmptyString(raw.api_key) ??
    nonEmptyString(properties.token)
  );
}

export { nonEmptyString };
