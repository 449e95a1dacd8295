/**
 * A small OTLP logs protobuf encoder for tests, written from opentelemetry-proto's field numbers
 * (logs.proto, common.proto, resource.proto): what an OpenTelemetry exporter puts on the wire.
 */
type Value =
  | { string: string }
  | { bool: boolean }
  | { int: bigint }
  | { double: number }
  | { bytes: Buffer }
  | { array: Value[] }
  | { kvlist: Array<[string, Value]> };

export interface ProtoRecord {
  time?: bigint;
  observed?: bigint;
  severityNumber?: number;
  severityText?: string;
  body?: Value;
  /** An encoded AnyValue instead of `body`. */
  bodyBytes?: Buffer;
  attributes?: Array<[string, Value]>;
  flags?: number;
  traceId?: Buffer;
  spanId?: Buffer;
  eventName?: string;
}

function varint(value: bigint): Buffer {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return Buffer.from(out);
}
const tag = (field: number, wire: number) => varint(BigInt((field << 3) | wire));
const len = (field: number, payload: Buffer) =>
  Buffer.concat([tag(field, 2), varint(BigInt(payload.length)), payload]);
const str = (field: number, text: string) => len(field, Buffer.from(text, 'utf8'));
function fixed64(field: number, value: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(value);
  return Buffer.concat([tag(field, 1), b]);
}
function fixed32(field: number, value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return Buffer.concat([tag(field, 5), b]);
}

export function anyValue(v: Value): Buffer {
  if ('string' in v) return str(1, v.string);
  if ('bool' in v) return Buffer.concat([tag(2, 0), varint(v.bool ? 1n : 0n)]);
  if ('int' in v) return Buffer.concat([tag(3, 0), varint(v.int)]);
  if ('double' in v) {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v.double);
    return Buffer.concat([tag(4, 1), b]);
  }
  if ('bytes' in v) return len(7, v.bytes);
  if ('array' in v) return len(5, Buffer.concat(v.array.map((x) => len(1, anyValue(x)))));
  return len(6, Buffer.concat(v.kvlist.map((kv) => len(1, keyValue(kv)))));
}
const keyValue = ([key, value]: [string, Value]) => Buffer.concat([str(1, key), len(2, anyValue(value))]);

function logRecord(r: ProtoRecord): Buffer {
  return Buffer.concat([
    r.time === undefined ? Buffer.alloc(0) : fixed64(1, r.time),
    r.severityNumber === undefined
      ? Buffer.alloc(0)
      : Buffer.concat([tag(2, 0), varint(BigInt(r.severityNumber))]),
    r.severityText === undefined ? Buffer.alloc(0) : str(3, r.severityText),
    r.body === undefined ? Buffer.alloc(0) : len(5, anyValue(r.body)),
    r.bodyBytes === undefined ? Buffer.alloc(0) : len(5, r.bodyBytes),
    ...(r.attributes ?? []).map((kv) => len(6, keyValue(kv))),
    r.flags === undefined ? Buffer.alloc(0) : fixed32(8, r.flags),
    r.traceId === undefined ? Buffer.alloc(0) : len(9, r.traceId),
    r.spanId === undefined ? Buffer.alloc(0) : len(10, r.spanId),
    r.observed === undefined ? Buffer.alloc(0) : fixed64(11, r.observed),
    r.eventName === undefined ? Buffer.alloc(0) : str(12, r.eventName),
    // An unknown field, which readers skip.
    str(99, 'future field'),
  ]);
}

/** `ExportLogsServiceRequest` with one resource and one scope. */
export function logsRequest(service: string, scope: string, records: ProtoRecord[]): Buffer {
  const resource = len(1, keyValue(['service.name', { string: service }]));
  const scopeLogs = Buffer.concat([
    len(1, Buffer.concat([str(1, scope), str(2, '1.0')])),
    ...records.map((r) => len(2, logRecord(r))),
  ]);
  return len(1, Buffer.concat([len(1, resource), len(2, scopeLogs)]));
}

/** A value nested `depth` arrays deep. */
export function nestedValue(depth: number): Buffer {
  let v = anyValue({ string: 'x' });
  for (let i = 0; i < depth; i++) v = len(5, len(1, v));
  return v;
}

export interface ProtoSpan {
  traceId: Buffer;
  spanId: Buffer;
  parentSpanId?: Buffer;
  name: string;
  start: bigint;
  end: bigint;
  attributes?: Array<[string, Value]>;
  /** `Status.code` (2 = error) and message. */
  status?: { code: number; message?: string };
}

/** `ExportTraceServiceRequest` (trace.proto) with one resource and one scope. */
export function spansRequest(resource: Array<[string, Value]>, spans: ProtoSpan[]): Buffer {
  const span = (s: ProtoSpan) =>
    Buffer.concat([
      len(1, s.traceId),
      len(2, s.spanId),
      s.parentSpanId ? len(4, s.parentSpanId) : Buffer.alloc(0),
      str(5, s.name),
      Buffer.concat([tag(6, 0), varint(3n)]),
      fixed64(7, s.start),
      fixed64(8, s.end),
      ...(s.attributes ?? []).map((kv) => len(9, keyValue(kv))),
      s.status
        ? len(
            15,
            Buffer.concat([
              s.status.message ? str(2, s.status.message) : Buffer.alloc(0),
              tag(3, 0),
              varint(BigInt(s.status.code)),
            ]),
          )
        : Buffer.alloc(0),
      str(99, 'future field'),
    ]);
  const scopeSpans = Buffer.concat([
    len(1, Buffer.concat([str(1, 'gen-ai'), str(2, '1.0')])),
    ...spans.map((s) => len(2, span(s))),
  ]);
  const res = Buffer.concat(resource.map((kv) => len(1, keyValue(kv))));
  return len(1, Buffer.concat([len(1, res), len(2, scopeSpans)]));
}
