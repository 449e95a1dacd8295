import { ApiError } from '../../errors.js';
import { classifyEngineError } from '../../hogql/engine-errors.js';
import { isExposed } from '../../hogql/errors.js';

/**
 * A failed query as PostHog answers it: HogQL errors are 400 `invalid` with their message, engine
 * errors the user caused are 400 with the engine's error name, anything else is a bare 500.
 */
export function queryError(err: unknown, path?: string): Error {
  if (err instanceof ApiError) return path ? inNode(err, path) : err;
  if (isExposed(err)) {
    const attr = err.attr ? (path ? `${path}__${err.attr}` : err.attr) : null;
    return new ApiError(400, 'validation_error', 'invalid', err.message, attr);
  }
  const engine = classifyEngineError(err);
  if (engine?.exposed) return new ApiError(400, 'validation_error', engine.code, engine.message);
  if (engine) {
    // The engine's message stays on the error for the log (server/errors.ts), never in the body.
    const internal = new ApiError(500, 'server_error', 'error', engine.message);
    internal.cause = err;
    return internal;
  }
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * An error whose `attr` is relative to the query node, with the node's path in the body put in
 * front: `select__1` → `query__select__1` (one nesting form, `__`, for every attr).
 */
export function inNode(err: ApiError, path: string): ApiError {
  if (!err.attr) return err;
  const relative = err.attr.replace(/\./g, '__');
  return new ApiError(err.status, err.type, err.code, err.detail, `${path}__${relative}`, err.headers);
}
