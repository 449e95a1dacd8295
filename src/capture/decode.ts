import { decodeBody } from './body.js';
import { invalidPayload, malformed } from './errors.js';
import { distinctIdOf, eventTokenOf, isObject, nonEmptyString } from './fields.js';
import {
  DEFAULT_MAX_DECODED_BYTES,
  type DecodedPayload,
  type DecodeInput,
  type DecodeOptions,
  type RawEvent,
} from './types.js';

export { missingToken } from './errors.js';
export type { DecodedPayload, DecodeInput, DecodeOptions, RawEvent } from './types.js';

/**
 * Decodes any capture request the PostHog SDKs send (see `body.ts` for the wrappings) into its
 * events, without cleaning them (`normalize.ts` does that). The JSON may be:
 * - a batch `{api_key, batch: [...], sent_at, historical_migration?}` (posthog-node `/batch/`,
 *   posthog-js `/e/`);
 * - an array of events (posthog-js `/s/` recordings, each with its own `sent_at`; older `/e/`);
 * - one event object (`/capture/`, `/i/v0/e/`, `/engage/`).
 *
 * Token, first found wins: the body's `api_key`, the body's `token` (for a single event the body
 * is the event), then the events' own tokens (`token`/`$token`/`api_key`, then
 * `properties.token`), then `?token=` / `?api_key=`. Like PostHog's capture, a request is for one
 * project: if the events' own tokens are consulted and disagree, the request is a 400 (a body
 * token, when given, wins over the events' and they are not compared).
 *
 * Nothing partial: one invalid event rejects the whole request with a 400. An event is invalid
 * when it is not a JSON object, has no non-empty string `event` name (with `engage`, a missing
 * name becomes `$identify`), has no distinct id (see `distinctIdOf`; `$snapshot` included:
 * posthog-js always sends one), or has `properties` that are neither an object nor null. Other
 * fields (uuid, timestamp, offset, $set...) are repaired or ignored by `normalizeEvent` instead.
 * An empty batch is a 400 too, as in PostHog's capture.
 */
export function decodeCapture(input: DecodeInput, options: DecodeOptions = {}): DecodedPayload {
  const value = decodeBody(input, options.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES);

  let envelope: Record<string, unknown> | undefined;
  let items: unknown[];
  if (Array.isArray(value)) {
    items = value;
  } else if (isObject(value) && 'batch' in value) {
    if (!Array.isArray(value.batch)) throw malformed('"batch" must be a list of events');
    envelope = value;
    items = value.batch;
  } else if (isObject(value)) {
    envelope = value;
    items = [value];
  } else {
    throw malformed('expected an event object, a list of events or a batch');
  }
  if (items.length === 0) throw invalidPayload('Invalid payload: the batch contains no events.');

  const events = items.map((item, index) => checkEvent(item, index, options.engage === true));
  const sentAt = envelope?.sent_at;
  return {
    token: tokenOf(envelope, events, input.query),
    sentAt:
      typeof sentAt === 'string' && sentAt !== ''
        ? sentAt
        : typeof sentAt === 'number'
          ? String(sentAt)
          : nonEmptyString(input.query.sent_at),
    historicalMigration: envelope?.historical_migration === true,
    events,
  };
}

function checkEvent(item: unknown, index: number, engage: boolean): RawEvent {
  const where = at(index);
  if (!isObject(item)) throw invalidPayload(`Invalid payload: events must be JSON objects${where}.`);
  const event = item as RawEvent;
  if (engage && (event.event === undefined || event.event === null)) event.event = '$identify';
  if (typeof event.event !== 'string' || event.event === '') {
    throw invalidPayload(`Invalid payload: All events must have the event name field 'event'!${where}`);
  }
  if (event.properties !== undefined && event.properties !== null && !isObject(event.properties)) {
    throw invalidPayload(`Invalid payload: 'properties' must be a JSON object${where}.`);
  }
  if (distinctIdOf(event) === undefined) {
    throw invalidPayload(`Invalid payload: All events must have the event field 'distinct_id'!${where}`);
  }
  return event;
}

const at = (index: number) => ` (event ${index})`;

function tokenOf(
  envelope: Record<string, unknown> | undefined,
  events: RawEvent[],
  query: Record<string, string | undefined>,
): string | undefined {
  const fromBody = nonEmptyString(envelope?.api_key) ?? nonEmptyString(envelope?.token);
  if (fromBody) return fromBody;
  const own = new Set(events.map(eventTokenOf).filter((token) => token !== undefined));
  if (own.size > 1) {
    throw invalidPayload('Invalid payload: all events of a request must use the same project API key.');
  }
  const [first] = own;
  return first ?? nonEmptyString(query.token) ?? nonEmptyString(query.api_key);
}
