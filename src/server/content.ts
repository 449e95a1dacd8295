import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { jsonDepthExceeds, MAX_API_JSON_DEPTH } from '../domain/json-depth.js';
import { ApiError } from '../errors.js';

const parseError = (detail: string) =>
  new ApiError(400, 'invalid_request', 'parse_error', `JSON parse error - ${detail}`);

/** `application/json` and `application/*+json`, with or without parameters. */
const JSON_TYPE = /^application\/([^;\s]+\+)?json(;|$)/;

/**
 * The API speaks JSON only: any other content type is a 415. An empty body is no body (DRF treats
 * it as `{}`), `__proto__`/`constructor.prototype` keys are refused rather than trusted, and so
 * is nesting deeper than `MAX_API_JSON_DEPTH` (what reads the body afterwards recurses). Fastify
 * matches the pattern against the type with its parameters (`application/json; charset="utf-8"`).
 */
export function installJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    if (jsonDepthExceeds(text, MAX_API_JSON_DEPTH)) {
      return done(parseError(`nested too deeply (more than ${MAX_API_JSON_DEPTH} levels)`), undefined);
    }
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(parseError((error as Error).message), undefined);
    }
  });
  // Only routes that take a body pay for this hook.
  const emptyBodyIsObject = (request: FastifyRequest, _reply: unknown, done: () => void) => {
    if (request.body === undefined) request.body = {};
    done();
  };
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    route.preValidation = [emptyBodyIsObject, ...[route.preValidation ?? []].flat()];
  });
}
