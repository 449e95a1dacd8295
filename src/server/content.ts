import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../errors.js';

const parseError = (detail: string) =>
  new ApiError(400, 'invalid_request', 'parse_error', `JSON parse error - ${detail}`);

/** `application/json` and `application/*+json`, with or without parameters. */
const JSON_TYPE = /^application\/([^;\s]+\+)?json(;|$)/;

/**
 * The API speaks JSON only: any other content type is a 415. An empty body is no body (DRF treats
 * it as `{}`), and `__proto__`/`constructor.prototype` keys are refused rather than trusted. Fastify
 * matches the pattern against the type with its parameters (`application/json; charset="utf-8"`).
 */
export function installJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPE, { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
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
