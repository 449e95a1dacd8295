import { createHash } from 'node:crypto';
import { invalidPayload, tooManyEvents } from './errors.js';
import { isObject } from './fields.js';

/**
 * OTLP/HTTP JSON logs (`ExportLogsServiceRequest`, what posthog-node's `captureLog` and
 * OpenTelemetry's JSON exporters send to `/i/v1/logs`) as rows of PostHog's `logs` table.
 * Records are produced one at a time (a generator), so the caller can pause between them.
 */
export interface LogRecordRow {
  uuid: string;
  trace_id: string;
  span_id: string;
  trace_flags: number;
  body: string;
  attributes: string;
  timestamp: string;
  observed_timestamp: string;
  severity_text: string;
  severity_number: number;
  level: string;
  resource_attributes: string;
  instrumentation_scope: string;
  event_name: string;
  service_name: string;
}

/** Bounds on the text one record may bring (the request's size bounds the rest). */
const MAX_ID_CHARS = 64;
const MAX_NAME_CHARS = 1000;

/** OTLP's AnyValue as plain JSON: kvlists become objects, arrays arrays, 64-bit ints numbers where exact. */
export function anyValue(value: unknown): unknown {
  if (!isObject(value)) return null;
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    return Number.isSafeInteger(n) ? n : String(value.intValue);
  }
  if (value.doubleValue !== undefined) {
    const n = Number(value.doubleValue);
    return Number.isFinite(n) ? n : String(value.doubleValue);
  }
  if (isObject(value.arrayValue)) {
    const values = value.arrayValue.values;
    return Array.isArray(values) ? values.map(anyValue) : [];
  }
  if (isObject(value.kvlistValue)) return keyValues(value.kvlistValue.values);
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  return null;
}

/** `[{key, value}]` as an object; `__proto__` keys are user data here, kept as own properties. */
export function keyValues(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!Array.isArray(list)) return out;
  for (const item of list) {
    if (!isObject(item) || typeof item.key !== 'string') continue;
    Object.defineProperty(out, item.key, {
      value: anyValue(item.value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** OpenTelemetry's severity number ranges, as PostHog's logs name them. */
export function levelOf(severityText: string, severityNumber: number): string {
  if (severityNumber >= 1 && severityNumber <= 24) {
    return ['trace', 'debug', 'info', 'warn', 'error', 'fatal'][
      Math.floor((severityNumber - 1) / 4)
    ] as string;
  }
  const text = severityText.trim().toLowerCase();
  if (text === 'warning') return 'warn';
  if (text === 'critical') return 'fatal';
  return ['trace', 'debug', 'info', 'warn', 'error', 'fatal'].includes(text) ? text : 'info';
}

/** Nanoseconds since the epoch (a string or a number, as OTLP JSON allows) as microsecond UTC text. */
export function nanosToTime(value: unknown): string | undefined {
  let digits: string;
  if (typeof value === 'string' && /^\d{1,20}$/.test(value)) digits = value;
  else if (typeof value === 'number' && Number.isFinite(value) && value > 0)
    digits = BigInt(Math.round(value)).toString();
  else return undefined;
  if (/^0+$/.test(digits)) return undefined;
  const micros = BigInt(digits) / 1000n;
  const ms = Number(micros / 1000n);
  // Years 1970 to 2261, what DateTime64(6) holds.
  if (!(ms >= 0 && ms < 9_200_000_000_000)) return undefined;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}.${(micros % 1_000_000n).toString().padStart(6, '0')}`;
}

const text = (value: unknown, max: number) => (typeof value === 'string' ? value.slice(0, max) : '');

/**
 * The records of a request, in order. 400 for a body that is not an `ExportLogsServiceRequest`,
 * 413 past `maxRecords`. `now` is the server's time (UTC text), for records without any time.
 */
export function* logRows(body: unknown, maxRecords: number, now: string): Generator<LogRecordRow> {
  if (!isObject(body) || !Array.isArray(body.resourceLogs)) {
    throw invalidPayload('Invalid payload: an OTLP logs request is an object with a "resourceLogs" list.');
  }
  let count = 0;
  for (const resourceLogs of body.resourceLogs) {
    if (!isObject(resourceLogs)) continue;
    const resource = keyValues(
      isObject(resourceLogs.resource) ? resourceLogs.resource.attributes : undefined,
    );
    const resourceText = JSON.stringify(resource);
    const service = typeof resource['service.name'] === 'string' ? resource['service.name'] : '';
    const scopes = Array.isArray(resourceLogs.scopeLogs) ? resourceLogs.scopeLogs : [];
    for (const scopeLogs of scopes) {
      if (!isObject(scopeLogs)) continue;
      const scope = isObject(scopeLogs.scope) ? text(scopeLogs.scope.name, MAX_NAME_CHARS) : '';
      const records = Array.isArray(scopeLogs.logRecords) ? scopeLogs.logRecords : [];
      for (const record of records) {
        if (!isObject(record)) continue;
        if (++count > maxRecords) throw tooManyEvents(maxRecords);
        const observed = nanosToTime(record.observedTimeUnixNano);
        // OpenTelemetry: a record without a time of its own happened when it was observed.
        const timestamp = nanosToTime(record.timeUnixNano) ?? observed ?? now;
        const body = anyValue(record.body);
        const severityText = text(record.severityText, MAX_NAME_CHARS);
        const severityNumber = Number.isInteger(record.severityNumber)
          ? (record.severityNumber as number)
          : 0;
        const attributes = JSON.stringify(keyValues(record.attributes));
        const row = {
          trace_id: text(record.traceId, MAX_ID_CHARS).toLowerCase(),
          span_id: text(record.spanId, MAX_ID_CHARS).toLowerCase(),
          trace_flags: Number.isInteger(record.flags) ? (record.flags as number) : 0,
          body: typeof body === 'string' ? body : body === null ? '' : JSON.stringify(body),
          attributes,
          timestamp,
          observed_timestamp: observed ?? timestamp,
          severity_text: severityText,
          severity_number: severityNumber,
          level: levelOf(severityText, severityNumber),
          resource_attributes: resourceText,
          instrumentation_scope: scope,
          event_name: text(record.eventName, MAX_NAME_CHARS),
          service_name: service.slice(0, MAX_NAME_CHARS),
        };
        yield { uuid: recordId(row), ...row };
      }
    }
  }
}

/**
 * The same record sent twice (an SDK's retry) gets the same id, so the table keeps one copy. The
 * record's time is in it to the microsecond, so two equal lines logged apart stay two.
 */
function recordId(row: Omit<LogRecordRow, 'uuid'>): string {
  const hex = createHash('sha256').update(JSON.stringify(row)).digest('hex');
  // Shaped as a UUID (version 8: custom), for tools that expect one.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((Number.parseInt(hex[16] as string, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
