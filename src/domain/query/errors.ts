import { ApiError } from '../../errors.js';
import { classifyEngineError } from '../../hogql/engine-errors.js';
import { isExposed } from '../../hogql/errors.js';

/**
 * A failed query as PostHog answers it: HogQL errors are 400 `invalid` with their message, engine
 * errors the user caused are 400 with the engine's error name, anything else is a bare 500.
 */
export function queryError(err: unknown): Error {
  if (err instanceof ApiError) return err;
  if (isExposed(err)) return new ApiError(400, 'validation_error', 'invalid', err.message);
  const engine = classifyEngineError(err);
  if (engine?.exposed) return new ApiError(400, 'validation_error', engine.code, engine.message);
  if (engine) return new ApiError(500, 'server_error', 'error', engine.message);
  return err instanceof Error ? err : new Error(String(err));
}
