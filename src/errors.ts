/**
 * Errors the domain raises, carrying PostHog's error body fields. The HTTP layer turns them into
 * `{type, code, detail, attr}` with `status`; nothing here knows about Fastify.
 */
export type ErrorType =
  | 'validation_error'
  | 'authentication_error'
  | 'invalid_request'
  | 'throttled_error'
  | 'server_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    readonly code: string,
    readonly detail: string,
    readonly attr: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  toBody() {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }
}

export const notFound = (detail = 'Not found.') => new ApiError(404, 'invalid_request', 'not_found', detail);

export const permissionDenied = (
  detail = 'You do not have permission to perform this action.',
  code = 'permission_denied',
) => new ApiError(403, 'authentication_error', code, detail);

export const validationError = (detail: string, attr: string | null = null, code = 'invalid_input') =>
  new ApiError(400, 'validation_error', code, detail, attr);

export const notAuthenticated = () =>
  new ApiError(
    401,
    'authentication_error',
    'not_authenticated',
    'Authentication credentials were not provided.',
    null,
    {
      'WWW-Authenticate': 'Bearer realm="api"',
    },
  );

export const authenticationFailed = (detail: string) =>
  new ApiError(401, 'authentication_error', 'authentication_failed', detail, null, {
    'WWW-Authenticate': 'Bearer realm="api"',
  });

export const conflict = (detail: string) => new ApiError(409, 'invalid_request', 'conflict', detail);

/**
 * DRF's `"x" is not a valid choice.`, followed by the valid choices so nobody has to guess (long
 * lists are cut after 30, with how many more there are).
 */
export function invalidChoice(value: unknown, allowed: readonly unknown[], attr: string | null) {
  const shown = String(value).slice(0, 100);
  const names = allowed.slice(0, 30).map((a) => (a === null ? 'null' : String(a)));
  const more = allowed.length > 30 ? ` (and ${allowed.length - 30} more)` : '';
  const hint = names.length ? ` Choose one of: ${names.join(', ')}${more}.` : '';
  return validationError(`"${shown}" is not a valid choice.${hint}`, attr, 'invalid_choice');
}
