import { codecOf, hasGzipMagic } from './bytes.js';
import { decodedTooLarge, malformed, tooDeep, tooManyEvents } from './errors.js';
import { runAsync, type Steps, TICK } from './steps.js';
import type { DecodeInput } from './types.js';

/**
 * OTLP/HTTP protobuf logs (`application/x-protobuf`, the default of most OpenTelemetry exporters)
 * turned into the OTLP JSON shape (`resourceLogs`, camelCase fields, ids as hex, 64-bit integers
 * as decimal text, bytes as base64), which `otlp-logs.ts` reads. Only the messages of an
 * `ExportLogsServiceRequest` are known (opentelemetry-proto's field numbers); unknown fields are
 * skipped, as protobuf readers do. The body is gunzipped off the event loop, and the decoder pauses
 * between records.
 */
export interface ProtobufLimits {
  maxDecodedBytes: number;
  maxDepth: number;
  maxRecords: number;
}

export const decodeOtlpLogsProtobufAsync = (input: DecodeInput, limits: ProtobufLimits): Promise<unknown> =>
  runAsync(protobufSteps(input, limits));

function* protobufSteps(input: DecodeInput, limits: ProtobufLimits): Steps<unknown> {
  let bytes = input.body ?? Buffer.alloc(0);
  const codec = codecOf(input.contentEncoding) ?? (hasGzipMagic(bytes) ? 'gzip' : undefined);
  if (codec) bytes = (yield { kind: 'inflate', bytes, codec, max: limits.maxDecodedBytes }) as Buffer;
  else if (bytes.length > limits.maxDecodedBytes) throw decodedTooLarge(limits.maxDecodedBytes);
  const reader = new Reader(bytes, limits);
  const resourceLogs: unknown[] = [];
  yield* fields(reader, bytes.length, function* (field, wire) {
    if (field === 1 && wire === LEN) resourceLogs.push(yield* reader.message(resourceLogsOf));
    else reader.skip(wire);
  });
  return { resourceLogs };
}

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

const invalid = (why: string) => malformed(`invalid protobuf (${why})`);

type FieldFn = (field: number, wire: number) => Generator<typeof TICK, void, Buffer | undefined>;

/** Calls `each` for every field up to `end`. */
function* fields(reader: Reader, end: number, each: FieldFn): Steps<void> {
  while (reader.pos < end) {
    const tag = reader.varint();
    yield* each(tag >>> 3, tag & 7);
  }
  if (reader.pos !== end) throw invalid('a field runs past its message');
}

class Reader {
  pos = 0;
  records = 0;
  constructor(
    readonly bytes: Buffer,
    readonly limits: ProtobufLimits,
  ) {}

  /** Up to 2^53: tags, lengths, enums, booleans. */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.bytes.length) throw invalid('truncated varint');
      const byte = this.bytes[this.pos++] as number;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
    throw invalid('varint longer than 10 bytes');
  }

  /** A 64-bit two's complement integer, as decimal text. */
  int64(): string {
    let value = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.bytes.length) throw invalid('truncated varint');
      const byte = this.bytes[this.pos++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asIntN(64, value).toString();
      shift += 7n;
    }
    throw invalid('varint longer than 10 bytes');
  }

  private need(n: number): void {
    if (this.pos + n > this.bytes.length) throw invalid('truncated field');
  }
  fixed64(): string {
    this.need(8);
    const v = this.bytes.readBigUInt64LE(this.pos);
    this.pos += 8;
    return v.toString();
  }
  fixed32(): number {
    this.need(4);
    const v = this.bytes.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  double(): number {
    this.need(8);
    const v = this.bytes.readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }
  /** A length-delimited field's bounds. */
  span(): { start: number; end: number } {
    const length = this.varint();
    this.need(length);
    const start = this.pos;
    this.pos += length;
    return { start, end: this.pos };
  }
  string(): string {
    const { start, end } = this.span();
    return this.bytes.toString('utf8', start, end);
  }
  hex(): string {
    const { start, end } = this.span();
    return this.bytes.toString('hex', start, end);
  }
  base64(): string {
    const { start, end } = this.span();
    return this.bytes.toString('base64', start, end);
  }
  skip(wire: number): void {
    if (wire === VARINT) this.varint();
    else if (wire === I64) this.fixed64();
    else if (wire === LEN) this.span();
    else if (wire === I32) this.fixed32();
    else throw invalid(`wire type ${wire} is not supported`);
  }
  /** A nested message read by a generator (it may pause). */
  *message<T>(read: (reader: Reader, end: number) => Steps<T>): Steps<T> {
    const length = this.varint();
    this.need(length);
    return yield* read(this, this.pos + length);
  }
  /** A nested message read at once (small: attributes, values). */
  sub<T>(read: (reader: Reader, end: number, depth: number) => T, depth: number): T {
    const length = this.varint();
    this.need(length);
    return read(this, this.pos + length, depth);
  }
}

/** Reads fields up to `end` without pausing. */
function each(reader: Reader, end: number, fn: (field: number, wire: number) => void): void {
  while (reader.pos < end) {
    const tag = reader.varint();
    fn(tag >>> 3, tag & 7);
  }
  if (reader.pos !== end) throw invalid('a field runs past its message');
}

function* resourceLogsOf(reader: Reader, end: number): Steps<unknown> {
  const out: { resource?: unknown; scopeLogs: unknown[] } = { scopeLogs: [] };
  yield* fields(reader, end, function* (field, wire) {
    if (field === 1 && wire === LEN) out.resource = reader.sub(attributesHolder, 0);
    else if (field === 2 && wire === LEN) out.scopeLogs.push(yield* reader.message(scopeLogsOf));
    else reader.skip(wire);
  });
  return out;
}

/** `Resource` (and the attributes of anything else with attributes at field 1). */
function attributesHolder(reader: Reader, end: number, depth: number): unknown {
  const attributes: unknown[] = [];
  each(reader, end, (field, wire) => {
    if (field === 1 && wire === LEN) attributes.push(reader.sub(keyValue, depth + 1));
    else reader.skip(wire);
  });
  return { attributes };
}

function* scopeLogsOf(reader: Reader, end: number): Steps<unknown> {
  const out: { scope?: unknown; logRecords: unknown[] } = { logRecords: [] };
  yield* fields(reader, end, function* (field, wire) {
    if (field === 1 && wire === LEN) out.scope = reader.sub(scopeOf, 0);
    else if (field === 2 && wire === LEN) {
      if (++reader.records > reader.limits.maxRecords) throw tooManyEvents(reader.limits.maxRecords);
      out.logRecords.push(reader.sub(logRecord, 0));
      yield TICK;
    } else reader.skip(wire);
  });
  return out;
}

function scopeOf(reader: Reader, end: number): unknown {
  const out: Record<string, unknown> = {};
  each(reader, end, (field, wire) => {
    if (field === 1 && wire === LEN) out.name = reader.string();
    else if (field === 2 && wire === LEN) out.version = reader.string();
    else reader.skip(wire);
  });
  return out;
}

function logRecord(reader: Reader, end: number, depth: number): unknown {
  const out: Record<string, unknown> = {};
  const attributes: unknown[] = [];
  each(reader, end, (field, wire) => {
    if (field === 1 && wire === I64) out.timeUnixNano = reader.fixed64();
    else if (field === 11 && wire === I64) out.observedTimeUnixNano = reader.fixed64();
    else if (field === 2 && wire === VARINT) out.severityNumber = reader.varint();
    else if (field === 3 && wire === LEN) out.severityText = reader.string();
    else if (field === 5 && wire === LEN) out.body = reader.sub(anyValue, depth + 1);
    else if (field === 6 && wire === LEN) attributes.push(reader.sub(keyValue, depth + 1));
    else if (field === 8 && wire === I32) out.flags = reader.fixed32();
    else if (field === 9 && wire === LEN) out.traceId = reader.hex();
    else if (field === 10 && wire === LEN) out.spanId = reader.hex();
    else if (field === 12 && wire === LEN) out.eventName = reader.string();
    else reader.skip(wire);
  });
  out.attributes = attributes;
  return out;
}

function keyValue(reader: Reader, end: number, depth: number): unknown {
  const out: Record<string, unknown> = {};
  each(reader, end, (field, wire) => {
    if (field === 1 && wire === LEN) out.key = reader.string();
    else if (field === 2 && wire === LEN) out.value = reader.sub(anyValue, depth + 1);
    else reader.skip(wire);
  });
  return out;
}

function anyValue(reader: Reader, end: number, depth: number): unknown {
  // Values nest (arrays, key-value lists): bounded as JSON is, before the recursion is deep.
  if (depth > reader.limits.maxDepth) throw tooDeep(reader.limits.maxDepth);
  const out: Record<string, unknown> = {};
  each(reader, end, (field, wire) => {
    if (field === 1 && wire === LEN) out.stringValue = reader.string();
    else if (field === 2 && wire === VARINT) out.boolValue = reader.varint() !== 0;
    else if (field === 3 && wire === VARINT) out.intValue = reader.int64();
    else if (field === 4 && wire === I64) out.doubleValue = reader.double();
    else if (field === 5 && wire === LEN) out.arrayValue = reader.sub(valueList(anyValue), depth + 1);
    else if (field === 6 && wire === LEN) out.kvlistValue = reader.sub(valueList(keyValue), depth + 1);
    else if (field === 7 && wire === LEN) out.bytesValue = reader.base64();
    else reader.skip(wire);
  });
  return out;
}

/** `ArrayValue` / `KeyValueList`: `repeated ... values = 1`. */
const valueList =
  (item: (reader: Reader, end: number, depth: number) => unknown) =>
  (reader: Reader, end: number, depth: number): unknown => {
    const values: unknown[] = [];
    each(reader, end, (field, wire) => {
      if (field === 1 && wire === LEN) values.push(reader.sub(item, depth + 1));
      else reader.skip(wire);
    });
    return { values };
  };

/**
 * OTLP/HTTP protobuf traces (`ExportTraceServiceRequest`, trace.proto's field numbers) in the OTLP
 * JSON shape (`resourceSpans`), for `/i/v0/ai/otel`; the same reader, limits and pauses as logs.
 */
export const decodeOtlpTracesProtobufAsync = (input: DecodeInput, limits: ProtobufLimits): Promise<unknown> =>
  runAsync(traceSteps(input, limits));

function* traceSteps(input: DecodeInput, limits: ProtobufLimits): Steps<unknown> {
  let bytes = input.body ?? Buffer.alloc(0);
  const codec = codecOf(input.contentEncoding) ?? (hasGzipMagic(bytes) ? 'gzip' : undefined);
  if (codec) bytes = (yield { kind: 'inflate', bytes, codec, max: limits.maxDecodedBytes }) as Buffer;
  else if (bytes.length > limits.maxDecodedBytes) throw decodedTooLarge(limits.maxDecodedBytes);
  const reader = new Reader(bytes, limits);
  const resourceSpans: unknown[] = [];
  yield* fields(reader, bytes.length, function* (field, wire) {
    if (field === 1 && wire === LEN) resourceSpans.push(yield* reader.message(resourceSpansOf));
    else reader.skip(wire);
  });
  return { resourceSpans };
}

function* resourceSpansOf(reader: Reader, end: number): Steps<unknown> {
  const out: { resource?: unknown; scopeSpans: unknown[] } = { scopeSpans: [] };
  yield* fields(reader, end, function* (field, wire) {
    if (field === 1 && wire === LEN) out.resource = reader.sub(attributesHolder, 0);
    else if (field === 2 && wire === LEN) out.scopeSpans.push(yield* reader.message(scopeSpansOf));
    else reader.skip(wire);
  });
  return out;
}

function* scopeSpansOf(reader: Reader, end: number): Steps<unknown> {
  const out: { scope?: unknown; spans: unknown[] } = { spans: [] };
  yield* fields(reader, end, function* (field, wire) {
    if (field === 1 && wire === LEN) out.scope = reader.sub(scopeOf, 0);
    else if (field === 2 && wire === LEN) {
      if (++reader.records > reader.limits.maxRecords) throw tooManyEvents(reader.limits.maxRecords);
      out.spans.push(reader.sub(spanOf, 0));
      yield TICK;
    } else reader.skip(wire);
  });
  return out;
}

function spanOf(reader: Reader, end: number, depth: number): unknown {
  const out: Record<string, unknown> = {};
  const attributes: unknown[] = [];
  each(reader, end, (field, wire) => {
    if (field === 1 && wire === LEN) out.traceId = reader.hex();
    else if (field === 2 && wire === LEN) out.spanId = reader.hex();
    else if (field === 4 && wire === LEN) out.parentSpanId = reader.hex();
    else if (field === 5 && wire === LEN) out.name = reader.string();
    else if (field === 6 && wire === VARINT) out.kind = reader.varint();
    else if (field === 7 && wire === I64) out.startTimeUnixNano = reader.fixed64();
    else if (field === 8 && wire === I64) out.endTimeUnixNano = reader.fixed64();
    else if (field === 9 && wire === LEN) attributes.push(reader.sub(keyValue, depth + 1));
    else if (field === 15 && wire === LEN) out.status = reader.sub(statusOf, depth + 1);
    else reader.skip(wire);
  });
  out.attributes = attributes;
  return out;
}

function statusOf(reader: Reader, end: number): unknown {
  const out: Record<string, unknown> = {};
  each(reader, end, (field, wire) => {
    if (field === 2 && wire === LEN) out.message = reader.string();
    else if (field === 3 && wire === VARINT) out.code = reader.varint();
    else reader.skip(wire);
  });
  return out;
}
