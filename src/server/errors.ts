import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { setCaptureCors } from '../api/capture-cors.js';
import { ApiError } from '../errors.js';
import { validationToApiError } from './validation.js';

const SERVER_ERROR = { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null };

function send(reply: FastifyReply, error: ApiError) {
  reply.headers(error.headers).code(error.status).send(error.toBody());
}

/** Maps Fastify's own errors (parsing, limits, content type) onto PostHog's shapes and codes. */
function fromFastify(error: FastifyError, request: FastifyRequest, bodyLimit: number): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        415,
        'invalid_request',
        'unsupported_media_type',
        `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.`,
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        413,
        'invalid_request',
        'request_too_large',
        `Request body is larger than the limit of ${request.routeOptions.bodyLimit ?? bodyLimit} bytes.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(
        400,
        'invalid_request',
        'parse_error',
        'Request body size did not match Content-Length.',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'invalid_request', 'parse_error', `JSON parse error - ${error.message}`);
  }
  if (error.validation) return validationToApiError(error.validation as never, error.validationContext);
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ApiError(status, 'invalid_request', 'invalid_request', error.message);
  }
  return null;
}

/**
 * A browser opening an address itself (typed, bookmarked, followed) rather than a script calling
 * the API: it asks for a document. Such a visit to a path no route serves gets the console's own
 * Not found page instead of a JSON body it would show raw.
 */
export function isPageNavigation(request: FastifyRequest): boolean {
  if (request.method !== 'GET') return false;
  const path = request.url.split('?')[0] ?? '/';
  if (path === '/api' || path.startsWith('/api/')) return false;
  const mode = request.headers['sec-fetch-mode'];
  const dest = request.headers['sec-fetch-dest'];
  if (mode !== undefined) return mode === 'navigate' && (dest === undefined || dest === 'document');
  // Browsers without Fetch Metadata: a document request lists text/html first.
  return /^\s*text\/html\b/.test(String(request.headers.accept ?? ''));
}

/** Where a page navigation to an unknown path is answered; filled in once the console is loaded. */
export interface NotFoundPage {
  send?: (request: FastifyRequest, reply: FastifyReply) => unknown;
}

/** The `/api/` paths browser SDKs call with a project token: their errors carry capture's CORS too. */
const SDK_API_PATHS = new Set(['/api/surveys', '/api/early_access_features'].flatMap((p) => [p, `${p}/`]));

export function installErrorHandling(
  app: FastifyInstance,
  options: { bodyLimit: number; ignoreTrailingSlash: boolean; notFoundPage?: NotFoundPage },
) {
  // A mirror of the route table, so that a path that exists under another method is a 405. Built
  // on the first unknown path, not as routes register: filling it cost ~60 ms of every start.
  const routes: Array<[string, string]> = [];
  const methods = new Set<string>();
  let mirror: ReturnType<typeof FindMyWay> | null = null;
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      methods.add(method);
      routes.push([method, route.url]);
    }
    mirror = null;
  });
  const mirrorOfRoutes = () => {
    if (mirror) return mirror;
    mirror = FindMyWay({ ignoreTrailingSlash: options.ignoreTrailingSlash, ignoreDuplicateSlashes: true });
    for (const [method, url] of routes) {
      try {
        mirror.on(method as never, url, () => {});
      } catch {
        // Fastify already refused or accepted this route; the mirror only needs one copy.
      }
    }
    return mirror;
  };

  /**
   * A path no route serves is answered from `onRequest`, before the body is read: parsing first
   * made an SDK posting JSON to a route Burrow lacks get a 400 `parse_error` (which SDKs treat as
   * final and drop the data) instead of the 404 (or 405) it can retry or report, and a large body
   * was read for nothing. The connection is closed when a body was announced, so it is never read.
   * Outside `/api/` the answer carries capture's CORS headers (browsers call SDK paths from other
   * sites and must be able to read the 404), and a preflight there is allowed, as PostHog's
   * capture allows it on any path; `/api/` keeps the same-origin rules of the console.
   */
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const sdkFacing = (!path.startsWith('/api/') && path !== '/api') || SDK_API_PATHS.has(path);
    if (sdkFacing) setCaptureCors(request, reply);
    if (
      request.headers['content-length'] !== undefined ||
      request.headers['transfer-encoding'] !== undefined
    ) {
      reply.header('Connection', 'close');
    }
    const table = mirrorOfRoutes();
    const allowed = [...methods].filter((m) => m !== request.method && table.find(m as never, path));
    if (
      sdkFacing &&
      request.method === 'OPTIONS' &&
      request.headers.origin &&
      request.headers['access-control-request-method']
    ) {
      return reply.code(204).send();
    }
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return send(
        reply,
        new ApiError(405, 'invalid_request', 'method_not_allowed', `Method "${request.method}" not allowed.`),
      );
    }
    if (options.notFoundPage?.send && isPageNavigation(request)) {
      return options.notFoundPage.send(request, reply.code(404));
    }
    return send(reply, new ApiError(404, 'invalid_request', 'not_found', 'Not found.'));
  };
  app.addHook('onRequest', (request, reply, done) => {
    if (!request.is404) return done();
    // Answered here: the lifecycle stops, and no body parser runs.
    notFound(request, reply);
  });
  app.setNotFoundHandler(notFound);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = error instanceof ApiError ? error : fromFastify(error, request, options.bodyLimit);
    // Every 500 is logged at error level with its request id (the X-Request-Id the client sent,
    // else a fresh one), whichever layer chose the status: an engine error answered as a bare
    // 500 is found in the log by the id, with the engine's own message as its cause.
    // The id goes back in X-Request-Id, so whoever got the 500 can quote it.
    if (!mapped || mapped.status === 500) {
      const err = mapped?.cause ?? error;
      request.log.error({ err, requestId: request.id, url: request.url.split('?')[0] }, 'server error');
      reply.header('X-Request-Id', request.id);
    }
    if (mapped) return send(reply, mapped);
    return reply.code(500).send(SERVER_ERROR);
  });
}
