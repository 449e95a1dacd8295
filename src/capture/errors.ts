import { ApiError } from '../errors.js';

/**
 * Capture's errors, in the `{type, code, detail, attr}` shape and with the wording of PostHog's
 * (Python) capture endpoint, which SDKs and users know: every malformed payload is a 400
 * `validation_error` / `invalid_payload` with `attr: null`; the detail says what was wrong.
 */
export const invalidPayload = (detail: string) =>
  new ApiError(400, 'validation_error', 'invalid_payload', detail);

export const malformed = (reason: string) => invalidPayload(`Malformed request data: ${reason}`);

export const noData = () =>
  new ApiError(
    400,
    'validation_error',
    'no_data',
    'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
  );

/** Same code as the server's own body limit (`request_too_large`), for the decoded size. */
export const decodedTooLarge = (limit: number) =>
  new ApiError(
    413,
    'invalid_request',
    'request_too_large',
    `Request body is larger than the limit of ${limit} bytes once decompressed.`,
  );

/** PostHog's capture parses with serde_json, which refuses JSON nested deeper than 128 levels. */
export const tooDeep = (limit: number) => malformed(`JSON is nested too deeply (more than ${limit} levels)`);

export const tooManyEvents = (limit: number) =>
  new ApiError(
    413,
    'invalid_request',
    'too_many_events',
    `Request holds more than ${limit} events. Send them in several requests.`,
  );

/** PostHog's capture answers 413 for an event larger than its Kafka message limit. */
export const eventTooLarge = (index: number | undefined, limit: number) =>
  new ApiError(
    413,
    'invalid_request',
    'event_too_large',
    `${index === undefined ? 'The event' : `Event ${index}`} is larger than the limit of ${limit} bytes.`,
  );

export const unsupportedEncoding = (encoding: string) =>
  new ApiError(
    415,
    'invalid_request',
    'unsupported_media_type',
    `Unsupported content encoding "${encoding}" in request.`,
  );

/** For the caller once it has looked at `DecodedPayload.token` (PostHog: 401 `missing_api_key`). */
export const missingToken = () =>
  new ApiError(
    401,
    'authentication_error',
    'missing_api_key',
    'API key not provided. You can find your project API key in PostHog project settings.',
  );
