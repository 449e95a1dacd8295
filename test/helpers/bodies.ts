/** PostHog's canonical error bodies and value shapes, as the tests expect them. */
export const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

export const denied = (detail = 'You do not have permission to perform this action.') => ({
  type: 'authentication_error',
  code: 'permission_denied',
  detail,
  attr: null,
});

export const DENIED = denied();
export const INSUFFICIENT = denied('Your organization access level is insufficient.');

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The ISO 8601 text the API writes: UTC with milliseconds. */
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
