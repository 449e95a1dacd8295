import { invalidPayload } from './errors.js';
import { distinctIdOf, isObject } from './fields.js';
import { isoUtc, parseIsoUtc } from './iso-time.js';
import type { RawEvent } from './types.js';
import { uuidv7, validUuid } from './uuid.js';

export interface NormalizeContext {
  /** Server time at which the request was received. */
  now: Date;
  /** The request's `sent_at` (`DecodedPayload.sentAt`); an event's own `sent_at` wins over it. */
  sentAt?: string;
  /** The client address, stored as `$ip` unless the event brought its own. */
  ip?: string;
  /** The project anonymises IPs: no `$ip` at all, not even one the client sent. */
  anonymizeIps?: boolean;
  /**
   * The raw events are the caller's to consume (freshly decoded, read by nothing else): their
   * `properties` objects become the normalised events' instead of being copied (capture's path,
   * where the copy was one object per event for the garbage collector).
   */
  consume?: boolean;
}

/** Same shape as the ingestion pipeline's `CaptureEvent` (src/domain/ingest/rows.ts). */
export interface NormalizedEvent {
  uuid: string;
  event: string;
  distinctId: string;
  properties: Record<string, unknown>;
  /** ISO 8601 UTC, millisecond precision. */
  timestamp: string;
}

/** Events more than this far ahead of the server clock are set to now (PostHog's 23 hours). */
export const FUTURE_CUTOFF_MS = 23 * 60 * 60 * 1000;

/**
 * Cleans one decoded event the way PostHog's ingestion does before storing it: the given uuid if
 * it is a UUID, else a new v7; `distinctId` as a string (`distinctIdOf`); top-level `$set` and
 * `$set_once` merged into the properties' own (top-level keys win), top-level `$unset` added to
 * `properties.$unset`; `$ip` from the request unless the event has one or the project
 * anonymises IPs; the timestamp corrected for the client's clock (`eventTime`). Pure but for
 * the random bits of a generated uuid (and, with `context.consume`, the raw event's properties,
 * which it reuses). Throws the decoder's 400 for an event `decodeCapture`
 * would have refused.
 */
export function normalizeEvent(raw: RawEvent, context: NormalizeContext): NormalizedEvent {
  const distinctId = distinctIdOf(raw);
  if (typeof raw.event !== 'string' || raw.event === '' || distinctId === undefined) {
    throw invalidPayload("Invalid payload: All events must have the fields 'event' and 'distinct_id'!");
  }
  const properties: Record<string, unknown> = isObject(raw.properties)
    ? context.consume
      ? raw.properties
      : { ...raw.properties }
    : {};
  for (const key of ['$set', '$set_once'] as const) {
    const top = raw[key];
    if (!isObject(top)) continue;
    const own = properties[key];
    properties[key] = { ...(isObject(own) ? own : {}), ...top };
  }
  if (Array.isArray(raw.$unset)) {
    const own = Array.isArray(properties.$unset) ? properties.$unset : [];
    properties.$unset = [...new Set([...own, ...raw.$unset])];
  }
  if (context.anonymizeIps) delete properties.$ip;
  else if ((properties.$ip === undefined || properties.$ip === null || properties.$ip === '') && context.ip) {
    properties.$ip = context.ip;
  }
  return {
    uuid: validUuid(raw.uuid) ?? uuidv7(context.now.getTime()),
    event: raw.event,
    distinctId,
    properties,
    timestamp: isoUtc(eventTime(raw, context)),
  };
}

/**
 * PostHog's `parseEventTimestamp`:
 * - a `timestamp` with a `sent_at` (the event's, else the request's; ignored when the event has
 *   `properties.$ignore_sent_at`): now + (timestamp − sent_at), the client clock's skew removed;
 * - a `timestamp` alone: as given (no zone = UTC);
 * - no `timestamp` but a numeric non-zero `offset` (ms): now − offset;
 * - otherwise, or when the timestamp does not parse or falls outside years 0–9999: now;
 * - and a result more than 23 hours after now is clamped to now.
 * `timestamp` wins over `offset` (PostHog's order). `sent_at` may be ISO or epoch milliseconds.
 */
export function eventTime(raw: RawEvent, context: Pick<NormalizeContext, 'now' | 'sentAt'>): number {
  const now = context.now.getTime();
  const ignoreSentAt = isObject(raw.properties) && Boolean(raw.properties.$ignore_sent_at);
  const sentAt = ignoreSentAt ? undefined : parseSentAt(raw.sent_at ?? context.sentAt);
  let time = now;
  if (raw.timestamp !== undefined && raw.timestamp !== null && raw.timestamp !== '') {
    const timestamp = parseTime(raw.timestamp);
    if (timestamp !== undefined) time = sentAt === undefined ? timestamp : now + (timestamp - sentAt);
  } else if (typeof raw.offset === 'number' && Number.isFinite(raw.offset) && raw.offset !== 0) {
    time = now - raw.offset;
  }
  if (!(time >= MIN_TIME && time <= MAX_TIME) || time - now > FUTURE_CUTOFF_MS) time = now;
  return time;
}

/** The request's `sent_at` is the same text for each of its events: parsed once. */
let lastSentAt: { text: unknown; time: number | undefined } = { text: undefined, time: undefined };
function parseSentAt(value: unknown): number | undefined {
  if (value !== lastSentAt.text) lastSentAt = { text: value, time: parseTime(value) };
  return lastSentAt.time;
}

const MIN_TIME = -62_167_219_200_000; // 0000-01-01T00:00:00Z
const MAX_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const NO_ZONE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/** Epoch milliseconds from a number, a string of digits, or a date string (no zone = UTC). */
export function parseTime(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  // What the SDKs send (`toISOString()`), straight to Date.parse: the checks below cannot apply.
  if (typeof value === 'string' && value.endsWith('Z') && value.charCodeAt(0) > 32) {
    const fast = parseIsoUtc(value);
    if (fast !== undefined) return fast;
    const time = Date.parse(value);
    if (!Number.isNaN(time)) return time;
  }
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const local = NO_ZONE.exec(text);
  const time = Date.parse(local ? `${local[1]}T${local[2]}Z` : text);
  return Number.isNaN(time) ? undefined : time;
}
