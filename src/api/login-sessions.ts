import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { endSession, type LoginLimits, login, SESSION_COOKIE } from '../domain/accounts/login-sessions.js';
import { AUTHENTICATED, PUBLIC } from '../domain/scopes.js';
import { sessionToken } from '../server/auth.js';
import type { Counters } from '../store/shared/counters.js';
import type { ApiPlugin } from './context.js';

const tags = ['sessions'];

/** HttpOnly and SameSite=Lax: scripts never see it and other sites' forms do not send it. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, expires: Date) {
  reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: request.protocol === 'https',
    expires,
  });
}

const LoginBody = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    password: Type.String({ maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const sessionRoutes: ApiPlugin<{ counters: Counters; loginLimits: LoginLimits }> = async (
  app,
  { deps, counters, loginLimits },
) => {
  app.post(
    '/api/login/',
    {
      config: { scope: PUBLIC },
      schema: {
        tags,
        summary: 'Log in with email and password; sets the session cookie',
        description:
          'The cookie authenticates the personal API key endpoints, so a member without a key can mint ' +
          'one. Attempts are limited per address and per client (429 with Retry-After).',
        body: LoginBody,
        response: { 200: Type.Object({ success: Type.Boolean() }) },
      },
    },
    async (request, reply) => {
      const { token, expiresAt } = await login(deps, counters, loginLimits, request.body, request.ip);
      setSessionCookie(request, reply, token, expiresAt);
      return { success: true };
    },
  );

  app.post(
    '/api/logout/',
    {
      config: { scope: AUTHENTICATED, session: true },
      schema: { tags, summary: 'End the current session', response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      const token = sessionToken(request, SESSION_COOKIE);
      if (token) await endSession(deps, token);
      reply.clearCookie(SESSION_COOKIE, { path: '/' });
      return reply.code(204).send(null);
    },
  );
};
