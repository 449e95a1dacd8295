import { ApiError, validationError } from '../../errors.js';
import type { LlmError } from './llm.js';

export const PROMPT_MAX = 400;
export const CURRENT_QUERY_MAX = 10_000;

export const EXAMPLES = [
  'daily pageviews last 2 weeks',
  'top 10 events by users',
  'weekly active users',
  'events by browser',
  'count of signups yesterday',
  'average session duration',
  'top pages',
  'users who did signup but not purchase',
  'add filter browser = Chrome (with a current query)',
];

export const required = () => validationError('This field is required.', 'prompt', 'required');

export const tooLong = () =>
  validationError(`Ensure this field has no more than ${PROMPT_MAX} characters.`, 'prompt', 'too_long');

/** The prompt could not be turned into a query; says why when known, and what works. */
export function unclear(why?: string): ApiError {
  const hint = `Try for example: ${EXAMPLES.map((e) => `"${e}"`).join(', ')}.`;
  const lead = why || 'Could not turn this prompt into a query.';
  return validationError(`${lead} ${hint}`, 'prompt', 'unclear');
}

/** The model endpoint failed and no template could stand in: a gateway error, never a crash. */
export function llmFailed(err: LlmError): ApiError {
  const what = `The SQL assistant (LLM_API_URL) ${err.message}.`;
  if (err.kind === 'timeout') return new ApiError(504, 'server_error', 'llm_timeout', what);
  if (err.kind === 'http' && err.status === 429) {
    const seconds = Math.min(3600, Math.max(1, Number(err.retryAfter) || 30));
    return new ApiError(503, 'server_error', 'llm_throttled', `${what} Try again later.`, null, {
      'Retry-After': String(seconds),
    });
  }
  return new ApiError(502, 'server_error', 'llm_error', what);
}
