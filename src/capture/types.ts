/**
 * Shapes the capture decoder reads and returns. `RawEvent` is an event as an SDK put it on the
 * wire, before any cleaning; only the fields PostHog's capture knows are named, the rest are kept.
 */
export interface RawEvent {
  event?: unknown;
  distinct_id?: unknown;
  /** Old posthog-js people (`/engage/`) and Python capture's alias for `distinct_id`. */
  $distinct_id?: unknown;
  properties?: Record<string, unknown> | null;
  timestamp?: unknown;
  /** Milliseconds between the event and the send (older SDKs instead of `timestamp`). */
  offset?: unknown;
  uuid?: unknown;
  $set?: unknown;
  $set_once?: unknown;
  $unset?: unknown;
  /** Per-event send time: posthog-js puts it on each `/s/` (recording) event. */
  sent_at?: unknown;
  token?: unknown;
  $token?: unknown;
  api_key?: unknown;
  /** Legacy message type of server SDKs (`capture`, `identify`, `engage`, ...). Not used here. */
  type?: unknown;
  [key: string]: unknown;
}

export interface DecodedPayload {
  /** The one project token of the request, if any was found (see `decode.ts` for the order). */
  token: string | undefined;
  /** Request-level send time as sent (ISO string, or epoch milliseconds from `?sent_at=`). */
  sentAt: string | undefined;
  /** posthog-node's `historicalMigration` option (`historical_migration: true` in the batch body). */
  historicalMigration: boolean;
  events: RawEvent[];
}

export interface DecodeInput {
  method: 'GET' | 'POST';
  contentType?: string;
  contentEncoding?: string;
  query: Record<string, string | undefined>;
  body: Buffer | undefined;
}

export interface DecodeOptions {
  /** Largest body after decompression/decoding, in bytes (UTF-16 units for lz64). Default 25 MiB. */
  maxDecodedBytes?: number;
  /** Most events one request may hold (413 past it). Default 10 000. */
  maxEvents?: number;
  /** Largest single event, as JSON bytes (413 past it). Default 1 MiB. */
  maxEventBytes?: number;
  /** Deepest JSON nesting of the whole payload (400 past it). Default 128, as PostHog's capture. */
  maxDepth?: number;
  /**
   * The request came to `/engage/` (old posthog-js people calls, `{$set, $token, $distinct_id}`
   * without an event name): events without a name become `$identify`, as PostHog's capture does.
   */
  engage?: boolean;
}

const MiB = 1024 * 1024;

/**
 * The defaults of `DecodeOptions` (docs/limits.md says why each): PostHog's capture decompresses
 * up to 100 MB per events request and takes events up to its Kafka message limit (1 MB); it
 * parses with serde_json, whose recursion limit refuses JSON deeper than 128 levels.
 */
export const DEFAULT_MAX_DECODED_BYTES = 25 * MiB;
export const DEFAULT_MAX_EVENTS = 10_000;
export const DEFAULT_MAX_EVENT_BYTES = MiB;
export const DEFAULT_MAX_DEPTH = 128;
