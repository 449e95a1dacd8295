import { decompress } from '../../capture/bytes.js';
import { decodedTooLarge, invalidPayload } from '../../capture/errors.js';
import type { RawEvent } from '../../capture/types.js';
import type { FormPart } from './multipart.js';

/** The events `/i/v0/ai` takes (PostHog's AI capture refuses any other name). */
export const AI_EVENTS = new Set([
  '$ai_generation',
  '$ai_trace',
  '$ai_span',
  '$ai_embedding',
  '$ai_metric',
  '$ai_feedback',
]);

/** As PostHog's AI capture: the `event` part is small; the bulk travels in blob parts. */
const MAX_EVENT_PART = 32 * 1024;
const BLOB_TYPES = /^(application\/octet-stream|application\/json|text\/plain)\s*(;.*)?$/i;
const BLOB_PREFIX = 'event.properties.';

export interface AcceptedPart {
  name: string;
  length: number;
  'content-type': string | null;
  'content-encoding': string | null;
}

const accepted = (part: FormPart): AcceptedPart => ({
  name: part.name,
  length: part.data.length,
  'content-type': part.contentType ?? null,
  'content-encoding': part.contentEncoding ?? null,
});

function jsonObject(bytes: Buffer, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidPayload(`${what} part must be valid JSON`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidPayload(`${what} part must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** A blob's value as the event's property: JSON as its value, anything else as text. */
function blobValue(part: FormPart, maxBytes: number): unknown {
  const encoding = part.contentEncoding?.trim().toLowerCase();
  let bytes = part.data;
  if (encoding === 'gzip') bytes = decompress(bytes, 'gzip', maxBytes);
  else if (encoding && encoding !== 'identity') {
    throw invalidPayload(`Unsupported content encoding for blob part '${part.name}': '${encoding}'`);
  }
  if (/^application\/json/i.test(part.contentType ?? '')) {
    try {
      return JSON.parse(bytes.toString('utf8'));
    } catch {
      throw invalidPayload(`Blob part '${part.name}' is not valid JSON`);
    }
  }
  return bytes.toString('utf8');
}

/**
 * One `/i/v0/ai` request (PostHog's multipart AI capture) as the event it describes: the `event`
 * part first, then `event.properties`, then blob parts named `event.properties.<property>`
 * (large inputs and outputs). PostHog keeps blobs in object storage and leaves a placeholder in
 * the event; Burrow has no object store, so each blob is joined back into its property and the
 * event is stored whole: whoever reads it sees what the SDK sent.
 */
export function aiEventFromParts(
  parts: FormPart[],
  maxBytes: number,
): { event: RawEvent; accepted: AcceptedPart[] } {
  const [first] = parts;
  if (first?.name !== 'event') {
    throw invalidPayload(`First part must be 'event', got '${first?.name ?? 'nothing'}'`);
  }
  const total = parts.reduce((sum, p) => sum + p.data.length, 0);
  if (total > maxBytes) throw decodedTooLarge(maxBytes);
  if (first.data.length > MAX_EVENT_PART) {
    throw invalidPayload(`Event part size (${first.data.length} bytes) exceeds ${MAX_EVENT_PART} bytes`);
  }
  const event = jsonObject(first.data, 'Event') as RawEvent;
  const name = event.event;
  if (typeof name !== 'string' || !AI_EVENTS.has(name)) {
    throw invalidPayload(`Unsupported event type '${String(name)}': only ${[...AI_EVENTS].join(', ')}`);
  }
  if (typeof event.distinct_id !== 'string' || event.distinct_id.trim() === '') {
    throw invalidPayload('Event must have a non-empty distinct_id');
  }
  const properties: Record<string, unknown> = { ...(event.properties ?? {}) };
  const seen = new Set<string>();
  let hadProperties = false;
  for (const part of parts.slice(1)) {
    if (part.name === 'event') throw invalidPayload("Duplicate 'event' part");
    if (part.name === 'event.properties') {
      if (hadProperties || event.properties) throw invalidPayload("Duplicate 'event.properties' part");
      hadProperties = true;
      Object.assign(properties, jsonObject(part.data, 'Properties'));
      continue;
    }
    if (!part.name.startsWith(BLOB_PREFIX) || part.name.length === BLOB_PREFIX.length) {
      throw invalidPayload(`Unknown part '${part.name}'`);
    }
    const property = part.name.slice(BLOB_PREFIX.length);
    // One value per property: a blob may not repeat one the properties already hold.
    if (seen.has(property) || Object.hasOwn(properties, property)) {
      throw invalidPayload(`Duplicate property '${property}' in part '${part.name}'`);
    }
    seen.add(property);
    if (!BLOB_TYPES.test(part.contentType ?? '')) {
      throw invalidPayload(
        `Unsupported or missing content type for blob part '${part.name}': application/octet-stream, application/json or text/plain`,
      );
    }
    if (part.data.length === 0) throw invalidPayload(`Blob part '${part.name}' cannot be empty (0 bytes)`);
    properties[property] = blobValue(part, maxBytes);
  }
  return { event: { ...event, properties }, accepted: parts.map(accepted) };
}
