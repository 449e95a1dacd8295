import { ApiError } from '../errors.js';

/**
 * Errors of query execution. They are ApiErrors, so the HTTP layer answers them as they are, in
 * PostHog's shape and with their headers.
 */

/** The team already has as many queries queued or running on this node as it may (429). */
export class QueryThrottledError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      429,
      'throttled_error',
      'throttled',
      `Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`,
      null,
      { 'Retry-After': String(retryAfterSeconds) },
    );
    this.name = 'QueryThrottledError';
  }
}

/** No status (and no running query) with this id for this team: PostHog's QueryNotFoundError. */
export class QueryNotFoundError extends ApiError {
  constructor(id: string) {
    super(404, 'invalid_request', 'not_found', `Query with ID ${id} not found.`);
    this.name = 'QueryNotFoundError';
  }
}

/** The query was cancelled (DELETE /query/{id}/ or the client went away) before it finished. */
export class QueryCancelledError extends ApiError {
  constructor() {
    super(400, 'validation_error', 'query_was_cancelled', 'Query was cancelled.');
    this.name = 'QueryCancelledError';
  }
}

export const isCancelled = (error: unknown): error is QueryCancelledError =>
  error instanceof QueryCancelledError;
