import secureJson from 'secure-json-parse';
import { payloadBytes } from './body.js';
import { eventTooLarge, invalidPayload, malformed, tooManyEvents } from './errors.js';
import { distinctIdOf, eventTokenOf, isObject, nonEmptyString } from './fields.js';
import { type Container, type Span, scanContainer, skipSpace, skipString } from './json-scan.js';
import { runAsync, runSync, type Steps, TICK } from './steps.js';
import type { TurnKey } from './turns.js';
import {
  DEFAULT_MAX_DECODED_BYTES,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_EVENTS,
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
 *
 * Bounded work (docs/limits.md): decoded bytes, events per request, bytes per event and nesting
 * depth are checked before anything is parsed; the JSON is split into events without parsing it
 * and each event is parsed on its own, so `decodeCaptureAsync` never holds the event loop for
 * more than one event.
 */
export const decodeCapture = (input: DecodeInput, options: DecodeOptions = {}): DecodedPayload =>
  runSync(decodeSteps(input, options));

/** `key`: the project the request is taken to be for, whose turns its pauses wait for (turns.ts). */
export const decodeCaptureAsync = (
  input: DecodeInput,
  options: DecodeOptions = {},
  key?: TurnKey,
): Promise<DecodedPayload> => runAsync(decodeSteps(input, options), key);

/** The JSON body of a small request (`/flags/`), with the same limits; any JSON value. */
export const decodeJsonBodyAsync = (input: DecodeInput, options: DecodeOptions = {}): Promise<unknown> =>
  runAsync(jsonBodySteps(input, options));

/** Bodies up to this size may take `plainJsonBody`'s shortcut. */
const PLAIN_BODY_BYTES = 16 * 1024;

/**
 * The common `/flags/` body (a few hundred bytes of plain JSON: no compression, form or base64),
 * decoded in line: the nesting depth counted in one pass, then one `JSON.parse`. Undefined when
 * the body is anything else or anything is wrong with it: `decodeJsonBodyAsync` then decodes it
 * and reports what is wrong exactly as before. For this body it allocated a generator, a promise
 * and the scanner's member lists, as much work as the parse itself.
 */
export function plainJsonBody(input: DecodeInput, options: DecodeOptions = {}): unknown {
  const body = input.body;
  if (input.method !== 'POST' || !body || body.length === 0 || body.length > PLAIN_BODY_BYTES)
    return undefined;
  if (input.contentEncoding || input.query.compression || input.query.data !== undefined) return undefined;
  const type = input.contentType;
  if (type !== undefined && !/^\s*(application\/json|text\/plain)\s*(;|$)/i.test(type)) return undefined;
  let i = skipSpace(body, 0);
  if (body[i] !== 0x7b) return undefined;
  const maxDepth = limitsOf(options).maxDepth;
  let depth = 0;
  const n = body.length;
  try {
    while (i < n) {
      const c = body[i] as number;
      if (c === 0x22) {
        i = skipString(body, i);
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        if (++depth > maxDepth) return undefined;
      } else if (c === 0x7d || c === 0x5d) depth--;
      i++;
    }
    return depth === 0 ? parseJson(body, { start: 0, end: n }) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A list of events up to this many bytes of JSON is parsed with one `JSON.parse` (about a
 * millisecond at this size, as long as the decoder's other slices); a larger one event by event,
 * pausing between them.
 */
const WHOLE_LIST_BYTES = 256 * 1024;

function limitsOf(options: DecodeOptions) {
  return {
    maxDecodedBytes: options.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES,
    maxEvents: options.maxEvents ?? DEFAULT_MAX_EVENTS,
    maxEventBytes: options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES,
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
  };
}

function* decodeSteps(input: DecodeInput, options: DecodeOptions): Steps<DecodedPayload> {
  const limits = limitsOf(options);
  const bytes = yield* payloadBytes(input, limits.maxDecodedBytes);
  const root = yield* scanContainer(bytes, 0, {
    maxDepth: limits.maxDepth,
    maxElements: limits.maxEvents,
    tooMany: () => tooManyEvents(limits.maxEvents),
    splitKey: 'batch',
  });
  endOfJson(bytes, root);

  let envelope: Record<string, unknown> | undefined;
  let spans: Span[];
  /** The list the events came in (a batch's, or a root array), when there is one. */
  let list: Span | undefined;
  if (root.kind === 'array') {
    spans = root.values;
    list = { start: 0, end: root.end };
  } else {
    const fields = envelopeFields(bytes, root, limits.maxEventBytes);
    if (fields.batch) {
      const batch = fields.batch;
      if (bytes[batch.start] !== 0x5b) throw malformed('"batch" must be a list of events');
      // Split during the scan, unless the key was spelled with escapes or came twice.
      const batchList =
        root.split?.end === batch.end
          ? root.split
          : yield* scanContainer(bytes, batch.start, {
              maxDepth: Number.POSITIVE_INFINITY,
              maxElements: limits.maxEvents,
              tooMany: () => tooManyEvents(limits.maxEvents),
            });
      spans = batchList.values;
      list = batch;
      envelope = fields.values;
    } else {
      // One event: the body is the event, and its own fields are the envelope's.
      spans = [{ start: 0, end: root.end }];
    }
  }
  if (spans.length === 0) throw invalidPayload('Invalid payload: the batch contains no events.');

  const single = root.kind === 'object' && envelope === undefined;
  const events: RawEvent[] = [];
  if (list && list.end - list.start <= WHOLE_LIST_BYTES) {
    // Small enough to parse at once (the usual SDK batch): one parse instead of a string and a
    // parse per event took decoding from 3.8 to 3.3 µs per event (docs/benchmarks-history.md "Issue 22, session 7").
    for (let index = 0; index < spans.length; index++) {
      const span = spans[index] as Span;
      if (span.end - span.start > limits.maxEventBytes) throw eventTooLarge(index, limits.maxEventBytes);
    }
    const items = parseJson(bytes, list) as unknown[];
    for (let index = 0; index < items.length; index++) {
      events.push(checkEvent(items[index], index, options.engage === true));
    }
  } else {
    for (let index = 0; index < spans.length; index++) {
      const span = spans[index] as Span;
      if (span.end - span.start > limits.maxEventBytes) {
        throw eventTooLarge(single ? undefined : index, limits.maxEventBytes);
      }
      const item = parseJson(bytes, span);
      events.push(checkEvent(item, index, options.engage === true));
      if (single) envelope = item as Record<string, unknown>;
      yield TICK;
    }
  }

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

function* jsonBodySteps(input: DecodeInput, options: DecodeOptions): Steps<unknown> {
  const limits = limitsOf(options);
  const bytes = yield* payloadBytes(input, limits.maxDecodedBytes);
  const root = yield* scanContainer(bytes, 0, { maxDepth: limits.maxDepth });
  endOfJson(bytes, root);
  return parseJson(bytes, { start: 0, end: root.end });
}

function endOfJson(bytes: Buffer, root: Container): void {
  if (skipSpace(bytes, root.end) < bytes.length) {
    throw malformed(`invalid JSON (unexpected data after the end, at byte ${root.end})`);
  }
}

/**
 * A root object with a `batch` member is a batch: its other members are parsed (each within the
 * per-event limit), `batch` is only located, to be split into events. Else it is one event.
 */
function envelopeFields(bytes: Buffer, root: Container, maxBytes: number) {
  const keys = root.keys.map((span) => parseJson(bytes, span) as string);
  const at = keys.lastIndexOf('batch');
  if (at < 0) return { values: {}, batch: undefined };
  const values: Record<string, unknown> = {};
  keys.forEach((key, i) => {
    const span = root.values[i] as Span;
    if (key === 'batch' || key === '__proto__' || key === 'constructor') return;
    if (span.end - span.start > maxBytes) throw eventTooLarge(undefined, maxBytes);
    values[key] = parseJson(bytes, span);
  });
  return { values, batch: root.values[at] as Span };
}

/**
 * `__proto__` keys are dropped (not refused: SDK properties are user data, not our objects). Text
 * that holds neither name nor any `\u` escape (with which a key could spell them) cannot have
 * such a key, so it goes to `JSON.parse` directly: secure-json-parse's two regular expressions
 * over every body cost more than these three searches (docs/benchmarks-history.md, "Issue 22, session 7").
 */
function parseJson(bytes: Buffer, span: Span): unknown {
  const text = bytes.toString('utf8', span.start, span.end);
  try {
    if (
      text.indexOf('\\u') === -1 &&
      text.indexOf('__proto__') === -1 &&
      text.indexOf('constructor') === -1 &&
      text.charCodeAt(0) !== 0xfeff
    ) {
      return JSON.parse(text);
    }
    return secureJson.parse(text, undefined, {
      protoAction: 'remove',
      constructorAction: 'remove',
    });
  } catch (error) {
    throw malformed(`invalid JSON (${(error as Error).message})`);
  }
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
