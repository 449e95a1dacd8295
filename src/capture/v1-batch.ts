import { ApiError } from '../errors.js';
import { invalidPayload } from './errors.js';
import { isObject } from './fields.js';
import type { RawEvent } from './types.js';
import { validUuid } from './uuid.js';

/**
 * Capture v1 (`POST /i/v1/analytics/events`, posthog-node's and posthog-python's
 * `POSTHOG_CAPTURE_MODE=v1`): a batch `{created_at, historical_migration?, batch: [...]}` whose
 * events have `event`, `uuid`, `distinct_id` and `timestamp` at the top, `session_id` and
 * `window_id` beside them, the SDK switches in `options`, and the SDK named by the
 * `PostHog-Sdk-Info` header instead of `$lib` properties. The project token comes as
 * `Authorization: Bearer`. This turns each event into the v0 shape the rest of capture reads, as
 * PostHog's capture injects the same properties before ingestion.
 */

/** Headers every v1 request carries (PostHog's capture answers 400 without them). */
export const V1_HEADERS = [
  'posthog-sdk-info',
  'posthog-attempt',
  'posthog-request-id',
  'posthog-request-timestamp',
] as const;

export interface V1Request {
  authorization: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

const header = (headers: V1Request['headers'], name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** The project token of the `Authorization: Bearer` header (401 without one, as PostHog's). */
export function v1Token(authorization: string | undefined): string {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) {
    throw new ApiError(
      401,
      'authentication_error',
      'missing_api_key',
      'Capture v1 takes the project API key as "Authorization: Bearer <project API key>".',
    );
  }
  return match[1];
}

/** The request's send time (for clock skew) and SDK; 400 when a required header is missing. */
export function v1Headers(headers: V1Request['headers']): { sentAt: string; lib?: [string, string] } {
  for (const name of V1_HEADERS) {
    if (!header(headers, name)?.trim()) {
      throw new ApiError(
        400,
        'validation_error',
        'missing_header',
        `Capture v1 requires the "${name}" header.`,
      );
    }
  }
  const info = (header(headers, 'posthog-sdk-info') as string).trim();
  // `posthog-node/5.70.0`: the name up to the last slash, the version after it.
  const slash = info.lastIndexOf('/');
  const lib: [string, string] | undefined =
    slash > 0 && slash < info.length - 1 && info.length <= 200
      ? [info.slice(0, slash), info.slice(slash + 1)]
      : undefined;
  return { sentAt: (header(headers, 'posthog-request-timestamp') as string).trim(), ...(lib ? { lib } : {}) };
}

/** PostHog's coercions of `options` values: booleans from true/false, "true"/"1"/"false"/"0", numbers. */
function optionBool(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true' || text === '1') return true;
    if (text === 'false' || text === '0') return false;
  }
  return undefined;
}

const OPTION_PROPERTIES: ReadonlyArray<readonly [string, string, 'bool' | 'string']> = [
  ['cookieless_mode', '$cookieless_mode', 'bool'],
  ['disable_skew_correction', '$ignore_sent_at', 'bool'],
  ['process_person_profile', '$process_person_profile', 'bool'],
  ['product_tour_id', '$product_tour_id', 'string'],
];

/**
 * One v1 event in place as a v0 event. A request is written whole or not at all (as every capture
 * route here): an event without a valid `uuid` or a `timestamp`, or with `options` that do not read
 * as PostHog reads them, makes the request a 400 naming it. (PostHog's capture refuses missing
 * fields for the whole batch too; an unreadable option drops only that event there.)
 */
export function fromV1Event(raw: RawEvent, index: number, lib: [string, string] | undefined): RawEvent {
  const where = ` (event ${index})`;
  if (validUuid(typeof raw.uuid === 'string' ? raw.uuid.trim() : raw.uuid) === undefined) {
    throw invalidPayload(`Invalid payload: every v1 event needs a valid 'uuid'${where}.`);
  }
  if (typeof raw.timestamp !== 'string' || raw.timestamp.trim() === '') {
    throw invalidPayload(`Invalid payload: every v1 event needs a 'timestamp'${where}.`);
  }
  if (typeof raw.distinct_id === 'string') raw.distinct_id = raw.distinct_id.trim();
  raw.uuid = (raw.uuid as string).trim();
  const properties: Record<string, unknown> = isObject(raw.properties) ? raw.properties : {};
  raw.properties = properties;
  // Set after the client's own keys: what the wire format says wins, as in PostHog's capture.
  if (typeof raw.session_id === 'string') properties.$session_id = raw.session_id;
  if (typeof raw.window_id === 'string') properties.$window_id = raw.window_id;
  const options = raw.options;
  if (options !== undefined && options !== null) {
    if (!isObject(options)) throw invalidPayload(`Invalid payload: 'options' must be a JSON object${where}.`);
    for (const [option, property, kind] of OPTION_PROPERTIES) {
      const value = options[option];
      if (value === undefined || value === null) continue;
      const read =
        kind === 'bool'
          ? optionBool(value)
          : typeof value === 'string'
            ? value
            : Number.isInteger(value)
              ? String(value)
              : undefined;
      if (read === undefined)
        throw invalidPayload(`Invalid payload: option '${option}' is unreadable${where}.`);
      properties[property] = read;
    }
  }
  if (lib) {
    properties.$lib = lib[0];
    properties.$lib_version = lib[1];
  }
  // v1 events take no per-event send time or token: the request's header and bearer key are used.
  delete raw.sent_at;
  delete raw.session_id;
  delete raw.window_id;
  delete raw.options;
  return raw;
}
