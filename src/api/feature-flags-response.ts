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

const reasons = new Map<string, string>();
/** A reason's JSON, built once per (code, condition): most answers repeat a handful of them. */
function reasonJson(r: FlagResult['reason']): string {
  const id = `${r.code}:${r.condition_index}:${r.description}`;
  let json = reasons.get(id);
  if (json === undefined) {
    json = JSON.stringify(r);
    if (reasons.size > 10_000) reasons.clear();
    reasons.set(id, json);
  }
  return json;
}

/**
 * The answer as JSON text. The `flags` map of the v2 shape is written directly: it is most of
 * the bytes of every answer and the generic serializer spent more time on it than evaluation did.
 */
export function flagsJson(
  shape: FlagsShape,
  evaluation: FlagsEvaluation,
  requestId: string,
  now: Date,
  config: Record<string, unknown> | null,
): string {
  if (shape !== 'details') return JSON.stringify(flagsBody(shape, evaluation, requestId, now, config));
  const head = JSON.stringify({
    requestId,
    evaluatedAt: now.getTime(),
    ...(config ?? {}),
    errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
    quotaLimited: [],
  });
  const parts: string[] = [];
  for (const r of evaluation.results) {
    const key = JSON.stringify(r.key);
    const variant = r.enabled && r.variant !== null ? JSON.stringify(r.variant) : 'null';
    const payload = r.payload === null || r.payload === undefined ? 'null' : JSON.stringify(r.payload);
    parts.push(
      `${key}:{"key":${key},"enabled":${r.enabled},"variant":${variant},${r.failed ? '"failed":true,' : ''}"reason":${reasonJson(r.reason)},"metadata":{"id":${r.id},"version":${r.version},"description":null,"payload":${payload}}}`,
    );
  }
  return `${head.slice(0, -1)},"flags":{${parts.join(',')}}}`;
}
