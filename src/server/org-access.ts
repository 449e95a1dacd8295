import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { txtLookup } from '../adapters/dns-txt.js';
import { createMailer } from '../adapters/smtp-mailer.js';
import type { OrgAccessOptions } from '../api/org-access.js';
import type { Config } from '../config.js';
import { resolveSession, SESSION_COOKIE } from '../domain/accounts/login-sessions.js';
import type { Deps } from '../domain/deps.js';
import { memoryCounters, redisCounters } from '../store/shared/counters.js';
import type { SessionResolver } from './auth.js';

/**
 * What domains, invites, members and login need from the outside world: cookies, the SMTP
 * mailer, the DNS resolver and rate-limit counters (shared through Redis when there is one).
 * Everything opened here is closed with the app.
 */
export async function setupOrgAccess(
  app: FastifyInstance,
  deps: Deps,
  config: Config,
): Promise<{ sessions: SessionResolver; options: OrgAccessOptions }> {
  // Cookies are parsed only where a route asks for them, not on every request.
  await app.register(cookie, { hook: false });
  const counters = config.redisUrl
    ? await redisCounters(config.redisUrl, config.redisKeyPrefix)
    : memoryCounters();
  const mailer = createMailer(config.smtpUrl, config.emailFrom, app.log);
  app.addHook('onClose', async () => {
    await mailer?.close();
    await counters.close();
  });
  return {
    sessions: { cookie: SESSION_COOKIE, resolve: (token) => resolveSession(deps, token) },
    options: {
      lookupTxt: txtLookup(config.dnsServers, config.dnsTimeoutMs),
      mailer,
      siteUrl: config.siteUrl,
      counters,
      loginLimits: {
        maxAttempts: config.loginMaxAttempts,
        windowMs: config.loginWindowSeconds * 1000,
        emailMaxAttempts: config.loginEmailMaxAttempts,
        emailWindowMs: config.loginEmailWindowSeconds * 1000,
      },
    },
  };
}
