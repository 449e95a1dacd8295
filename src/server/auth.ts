import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  authorize,
  checkKey,
  type OrganizationAccess,
  type ProjectAccess,
  type Target,
} from '../domain/access.js';
import type { Authenticator } from '../domain/accounts/authenticate.js';
import { csrfMatches } from '../domain/accounts/login-sessions.js';
import type { Deps } from '../domain/deps.js';
import type { Principal } from '../domain/principal.js';
import type { RouteScope } from '../domain/scopes.js';
import { ApiError, notAuthenticated, permissionDenied } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Every route declares one; a route under /api/ without it refuses every request. */
    scope?: RouteScope;
    /** The route works on the caller's current organization without naming it in the path. */
    currentOrganization?: boolean;
    /** A project secret key (`phs_…`) is checked by the route itself (local evaluation). */
    projectSecret?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    access: OrganizationAccess | ProjectAccess | null;
  }
}

/** Where the credential came from; PostHog also reads `?personal_api_key=`. */
function credential(request: FastifyRequest): { value: string; source: 'header' | 'query' } | null {
  const header = request.headers.authorization;
  if (header) {
    const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
    const token = match?.[1];
    if (token && !token.startsWith('pha_') && !token.startsWith('phs_'))
      return { value: token, source: 'header' };
  }
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = query?.personal_api_key;
  if (typeof fromQuery === 'string' && fromQuery !== '') return { value: fromQuery, source: 'query' };
  return null;
}

function targetOf(request: FastifyRequest): Target {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  if (params.project_id !== undefined) return { projectId: params.project_id };
  if (params.organization_id !== undefined) return { organizationId: params.organization_id };
  if (request.routeOptions.config.currentOrganization) return { organizationId: '@current' };
  return {};
}

/** Methods a cookie-authenticated request may use without a CSRF token (they change nothing). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Resolves login session cookies; without one, only API keys authenticate. */
export interface SessionResolver {
  cookie: string;
  resolve(token: string): Promise<Principal | undefined>;
}

export function sessionToken(request: FastifyRequest, cookie: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  const token = request.server.parseCookie(header)[cookie];
  return token || undefined;
}

const csrfFailed = () =>
  new ApiError(
    403,
    'authentication_error',
    'csrf_failed',
    'CSRF Failed: CSRF token missing or incorrect.',
    null,
  );

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw notAuthenticated();
  return request.principal;
}

export function projectAccessOf(request: FastifyRequest): ProjectAccess {
  const access = request.access;
  if (!access || !('team' in access)) throw permissionDenied();
  return access;
}

export function organizationAccessOf(request: FastifyRequest): OrganizationAccess {
  if (!request.access) throw permissionDenied();
  return request.access;
}

/**
 * Authenticates and authorises before the body is read, so an anonymous caller learns nothing
 * from parse or validation errors. Project and organization ids in the path are resolved here and
 * handed to the route as `request.access`.
 */
export function installAuth(
  app: FastifyInstance,
  deps: Deps,
  authenticator: Authenticator,
  sessions?: SessionResolver,
) {
  app.decorateRequest('principal', null);
  app.decorateRequest('access', null);
  // Callback style: a recently seen key on a route without a project or organization is
  // authorised without a single await, which is most of this hook's cost on hot list routes.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.is404) return done();
    const { config } = request.routeOptions;
    const required = config.scope;
    if (!required)
      return done(request.routeOptions.url?.startsWith('/api/') ? permissionDenied() : undefined);
    if ('kind' in required && required.kind === 'public') return done();
    if (config.projectSecret && /^\s*Bearer\s+phs_/i.test(request.headers.authorization ?? '')) return done();
    const found = credential(request);
    if (!found) {
      // A key always wins over a cookie (PostHog tries keys before sessions). A cookie is sent by
      // the browser on its own, so a request that changes something must also prove it came from
      // our page: the CSRF header, which only a script on our origin can read from its cookie.
      const token = sessions ? sessionToken(request, sessions.cookie) : undefined;
      if (!token || !sessions) return done(notAuthenticated());
      if (!SAFE_METHODS.has(request.method) && !csrfMatches(token, request.headers['x-csrftoken']))
        return done(csrfFailed());
      (async () => {
        const principal = await sessions.resolve(token);
        if (!principal) throw notAuthenticated();
        request.principal = principal;
        request.access = await authorize(deps, principal, required, targetOf(request));
      })().then(() => done(), done);
      return;
    }
    const target = targetOf(request);
    const cached = authenticator.peek(found.value);
    if (cached && !('projectId' in target) && !('organizationId' in target)) {
      try {
        request.principal = cached;
        checkKey(cached, required);
        return done();
      } catch (error) {
        return done(error as Error);
      }
    }
    (async () => {
      request.principal = cached ?? (await authenticator.authenticate(found.value, found.source));
      request.access = await authorize(deps, request.principal, required, target);
    })().then(() => done(), done);
  });
}
