/**
 * `$exception_list` as the SDKs send it (posthog-js `packages/core/src/error-tracking/`, Sentry's
 * order: the outermost exception first, each stack's frames oldest first) turned into the
 * "resolved" frames PostHog's cymbal writes back. Bounded: what a client sends is capped before
 * any work is done on it.
 */

/** Chained causes kept; more is a cycle or a misbehaving client. */
export const MAX_EXCEPTIONS = 32;
/** Frames kept per exception (the innermost ones, where the error was thrown). */
export const MAX_FRAMES = 200;
/** Characters kept of a message, a type, a file name, a function name. */
export const MAX_MESSAGE = 10_000;
const MAX_NAME = 1_000;

export interface ResolvedFrame {
  raw_id: string;
  mangled_name: string;
  line: number | null;
  column: number | null;
  source: string | null;
  module: string | null;
  in_app: boolean;
  resolved_name: string | null;
  lang: string;
  resolved: boolean;
  resolve_failure: string | null;
  /** Set when the frame came through a source map: the original lines around it. */
  context?: { before: ContextLine[]; line: ContextLine; after: ContextLine[] } | undefined;
  /** What the client sent, for the frame's symbolication (not written back). */
  chunk_id?: string | undefined;
  platform: string;
}

export interface ContextLine {
  number: number;
  line: string;
}

export interface ParsedException {
  type: string;
  value: string;
  mechanism: { handled?: boolean; synthetic?: boolean; type?: string };
  module: string | null;
  /** Null when the client sent no stack trace (then the message goes into the fingerprint). */
  frames: ResolvedFrame[] | null;
  /** Everything else the client put on the exception, kept as sent. */
  rest: Record<string, unknown>;
}

export class MalformedExceptionList extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const text = (v: unknown, max: number): string | null => {
  if (typeof v !== 'string') return typeof v === 'number' ? String(v) : null;
  return v.length > max ? v.slice(0, max) : v;
};

const int = (v: unknown): number | null =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2 ** 31 ? v : null;

function frameOf(raw: unknown, index: number): ResolvedFrame {
  const f = isObject(raw) ? raw : {};
  const platform = text(f.platform, 64) ?? 'web:javascript';
  const fn = text(f.function, MAX_NAME);
  const source = text(f.filename, MAX_NAME) ?? text(f.abs_path, MAX_NAME);
  const javascript = platform === 'web:javascript' || platform === 'node:javascript';
  const frame: ResolvedFrame = {
    raw_id: `${index}`,
    mangled_name: fn ?? '?',
    line: int(f.lineno),
    column: int(f.colno),
    source,
    module: text(f.module, MAX_NAME),
    in_app: f.in_app !== false,
    resolved_name: null,
    lang: javascript ? 'javascript' : (text(f.lang, 64) ?? platform),
    resolved: false,
    resolve_failure: null,
    chunk_id: text(f.chunk_id, 256) ?? undefined,
    platform,
  };
  if (platform === 'web:javascript') {
    // Minified until a symbol set says otherwise (symbolicate.ts).
    frame.resolve_failure = frame.chunk_id ? 'No symbol set for this chunk' : 'No chunk id on the frame';
  } else {
    // Node, Python and custom frames arrive readable: the function name is the resolved one.
    frame.resolved_name = fn;
    frame.resolved = f.resolved !== false;
  }
  return frame;
}

/** The list, or a MalformedExceptionList saying why it is not one. */
export function parseExceptionList(value: unknown): ParsedException[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new MalformedExceptionList('$exception_list is not a non-empty list');
  }
  const out: ParsedException[] = [];
  for (const raw of value.slice(0, MAX_EXCEPTIONS)) {
    if (!isObject(raw)) throw new MalformedExceptionList('an exception is not an object');
    const { type, value: message, mechanism, module, stacktrace, ...rest } = raw;
    let frames: ResolvedFrame[] | null = null;
    if (stacktrace !== undefined && stacktrace !== null) {
      if (!isObject(stacktrace) || !Array.isArray(stacktrace.frames)) {
        throw new MalformedExceptionList('a stacktrace has no frames list');
      }
      const all = stacktrace.frames;
      // Oldest first: the innermost frames (where it was thrown) are the last ones.
      const kept = all.length > MAX_FRAMES ? all.slice(all.length - MAX_FRAMES) : all;
      frames = kept.map((f, i) => frameOf(f, i));
    }
    out.push({
      type: text(type, MAX_NAME) ?? 'Error',
      value: text(message, MAX_MESSAGE) ?? '',
      mechanism: isObject(mechanism) ? (mechanism as ParsedException['mechanism']) : {},
      module: text(module, MAX_NAME),
      frames,
      rest,
    });
  }
  return out;
}

/** The list as written back on the event: resolved frames, PostHog's field names. */
export function serializeExceptionList(list: ParsedException[]): unknown[] {
  return list.map((e) => ({
    ...e.rest,
    type: e.type,
    value: e.value,
    mechanism: e.mechanism,
    ...(e.module !== null ? { module: e.module } : {}),
    ...(e.frames
      ? {
          stacktrace: {
            type: 'resolved',
            frames: e.frames.map(({ chunk_id: _c, platform: _p, ...f }) => f),
          },
        }
      : {}),
  }));
}
