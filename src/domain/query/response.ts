import type { QueryResult } from './context.js';
import { effectiveModifiers } from './hogql-runner.js';

/**
 * The response every runner answers with, in PostHog's field order: the runner's own fields
 * (`results` first), then `timings`, `error` and the modifiers Burrow applied, then `after`
 * (pagination and other trailing fields).
 */
export function queryResponse(
  fields: { results: unknown } & Record<string, unknown>,
  run: { seconds: number; modifiers: Record<string, unknown> | undefined },
  after: Record<string, unknown> = {},
): QueryResult {
  return {
    ...fields,
    timings: [{ k: './query', t: run.seconds }],
    error: null,
    modifiers: effectiveModifiers(run.modifiers),
    ...after,
  };
}
