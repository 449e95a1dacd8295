import type { FlagsEvaluation } from '../domain/flags/service.js';
import type { FlagResult } from '../domain/flags/types.js';

/**
 * The answer shapes of PostHog's flags service, by endpoint and version:
 * - `/flags?v=2` (posthog-js, posthog-node): `flags` with details per key;
 * - `/flags` (v1): `featureFlags` values and `featureFlagPayloads`;
 * - `/decide` v1: enabled keys; v2: enabled values; v3: like `/flags` v1; v4: like `/flags?v=2`.
 * `/decide` always carries the project config; `/flags` only with `config=true`.
 */
export type FlagsShape = 'details' | 'values' | 'decide-keys' | 'decide-values';

export function shapeOf(path: 'flags' | 'decide', version: string | undefined): FlagsShape {
  const v = Number.parseInt(version ?? '', 10);
  if (path === 'flags') return v >= 2 ? 'details' : 'values';
  if (v >= 4) return 'details';
  if (v === 3) return 'values';
  if (v === 2) return 'decide-values';
  if (v === 1) return 'decide-keys';
  return 'values';
}

const flagValue = (r: FlagResult) => (r.enabled && r.variant !== null ? r.variant : r.enabled);

export function flagsBody(
  shape: FlagsShape,
  evaluation: FlagsEvaluation,
  requestId: string,
  now: Date,
  config: Record<string, unknown> | null,
): Record<string, unknown> {
  const common = { requestId, evaluatedAt: now.getTime(), ...(config ?? {}) };
  const { results } = evaluation;
  switch (shape) {
    case 'details':
      return {
        ...common,
        errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
        flags: Object.fromEntries(
          results.map((r) => [
            r.key,
            {
              key: r.key,
              enabled: r.enabled,
              variant: r.enabled ? r.variant : null,
              ...(r.failed ? { failed: true } : {}),
              reason: r.reason,
              metadata: { id: r.id, version: r.version, description: null, payload: r.payload ?? null },
            },
          ]),
        ),
        quotaLimited: [],
      };
    case 'values':
      return {
        ...common,
        errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
        featureFlags: Object.fromEntries(results.map((r) => [r.key, flagValue(r)])),
        featureFlagPayloads: Object.fromEntries(
          results.filter((r) => r.enabled && r.payload != null).map((r) => [r.key, r.payload]),
        ),
        quotaLimited: [],
      };
    case 'decide-values':
      return {
        ...common,
        featureFlags: Object.fromEntries(results.filter((r) => r.enabled).map((r) => [r.key, flagValue(r)])),
      };
    case 'decide-keys':
      return { ...common, featureFlags: results.filter((r) => r.enabled).map((r) => r.key) };
  }
}

/**
 * Each result's `,"key":{…}` member as UTF-8, written once: evaluation shares one frozen result
 * per flag outcome, so most answers are copies of bytes encoded by an earlier request.
 */
const fragments = new WeakMap<FlagResult, Buffer>();

function fragmentOf(r: FlagResult): Buffer {
  let bytes = fragments.get(r);
  if (bytes === undefined) {
    const key = JSON.stringify(r.key);
    const variant = r.enabled && r.variant !== null ? JSON.stringify(r.variant) : 'null';
    const payload = r.payload === null || r.payload === undefined ? 'null' : JSON.stringify(r.payload);
    bytes = Buffer.from(
      `,${key}:{"key":${key},"enabled":${r.enabled},"variant":${variant},${r.failed ? '"failed":true,' : ''}"reason":${JSON.stringify(r.reason)},"metadata":{"id":${r.id},"version":${r.version},"description":null,"payload":${payload}}}`,
    );
    // Failed results carry the error of this request and are not shared: not worth keeping.
    if (Object.isFrozen(r)) fragments.set(r, bytes);
  }
  return bytes;
}

/**
 * The members of the `flags` map (no leading comma), copied from each result's bytes. A results
 * array the evaluator shares between requests (frozen: a returning id whose outcomes did not
 * change) keeps its bytes, so its next answers copy one piece instead of fifty.
 */
const membersByResults = new WeakMap<readonly FlagResult[], Buffer>();

function sharedMembers(results: readonly FlagResult[]): Buffer {
  let bytes = membersByResults.get(results);
  if (bytes === undefined) {
    bytes = Buffer.allocUnsafeSlow(membersSize(results));
    writeMembers(results.length, bytes, 0);
    membersByResults.set(results, bytes);
  }
  return bytes;
}

/** Each result's fragment, looked up once per answer (reused: answers are written synchronously). */
const scratch: Buffer[] = [];

function membersSize(results: readonly FlagResult[]): number {
  let size = 0;
  for (let i = 0; i < results.length; i++) {
    const part = fragmentOf(results[i] as FlagResult);
    scratch[i] = part;
    size += part.length;
  }
  return Math.max(0, size - 1);
}

/** Writes the members whose fragments `membersSize` just gathered at `at`; returns the end offset. */
function writeMembers(count: number, out: Buffer, at: number): number {
  // TypedArray#set: Buffer#copy goes through a binding call per part and cost several times more.
  for (let i = 0; i < count; i++) {
    const part = scratch[i] as Buffer;
    if (i === 0) {
      out.set(part.subarray(1), at);
      at += part.length - 1;
    } else {
      out.set(part, at);
      at += part.length;
    }
  }
  scratch.fill(EMPTY, 0, count);
  return at;
}

const EMPTY = Buffer.alloc(0);

/** Answers are carved from shared slabs, as Node does for small Buffers (see `answerBytes`). */
const SLAB_BYTES = 512 * 1024;
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabUsed = 0;

/**
 * Room for one answer. A typical answer (tens of KB) is over Node's own pool size, and a fresh
 * ArrayBuffer per request cost more than filling it; a region is never handed out twice (a full
 * slab is left to the answers still using it), so an answer being written is never overwritten.
 */
function answerBytes(size: number): Buffer {
  if (size > SLAB_BYTES / 8) return Buffer.allocUnsafe(size);
  if (slabUsed + size > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  const out = slab.subarray(slabUsed, slabUsed + size);
  slabUsed += (size + 7) & ~7;
  return out;
}

/**
 * The answer as JSON bytes. The `flags` map of the v2 shape is most of every answer: it is copied
 * from each result's bytes (see `fragmentOf`) rather than serialised and encoded per request;
 * a string built from 50 pieces cost more to flatten, measure and encode than to evaluate.
 */
export function flagsJson(
  shape: FlagsShape,
  evaluation: FlagsEvaluation,
  requestId: string,
  now: Date,
  config: Record<string, unknown> | null,
): Buffer | string {
  if (shape !== 'details') return JSON.stringify(flagsBody(shape, evaluation, requestId, now, config));
  // `{…head…,"flags":{` + members + `}}`. Without the config (the `/flags` answer) the head is a
  // template of ASCII: no object to build and serialise per request, and written as latin1.
  const open =
    config === null
      ? `{"requestId":${JSON.stringify(requestId)},"evaluatedAt":${now.getTime()},"errorsWhileComputingFlags":${evaluation.errorsWhileComputingFlags},"quotaLimited":[],"flags":{`
      : `${JSON.stringify({
          requestId,
          evaluatedAt: now.getTime(),
          ...config,
          errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
          quotaLimited: [],
        }).slice(0, -1)},"flags":{`;
  const ascii = config === null && isAscii(open);
  const { results } = evaluation;
  const members = Object.isFrozen(results) ? sharedMembers(results) : null;
  const openBytes = ascii ? open.length : Buffer.byteLength(open);
  const out = answerBytes(openBytes + (members ? members.length : membersSize(results)) + 2);
  let at = out.write(open, 0, ascii ? 'latin1' : 'utf8');
  if (members) {
    out.set(members, at);
    at += members.length;
  } else at = writeMembers(results.length, out, at);
  out[at++] = 0x7d; // }
  out[at++] = 0x7d;
  return out;
}

/** True when every character is ASCII (the head's request id comes from the caller). */
function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
