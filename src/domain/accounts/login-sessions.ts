import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError, validationError } from '../../errors.js';
import {
  deleteExpiredSessions,
  deleteSession,
  findSessionUser,
  insertSession,
  setLastLogin,
} from '../../store/meta/login-sessions.js';
import type { UserRecord } from '../../store/meta/users.js';
import { findUserByEmail } from '../../store/meta/users.js';
import type { Counters } from '../../store/shared/counters.js';
import type { MetaDeps } from '../deps.js';
import type { Principal } from '../principal.js';
import { verifyPassword } from './passwords.js';

/** How long a login lasts; like Django's default session age. */
export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;
export const SESSION_COOKIE = 'burrow_session';
/** Readable by the page's scripts (not HttpOnly), which echo it in the X-CSRFToken header. */
export const CSRF_COOKIE = 'burrow_csrftoken';

/**
 * The CSRF token is derived from the session token, so nothing more is stored and it changes with
 * every login; another site can neither read it (same-origin cookies) nor compute it.
 */
export const csrfTokenFor = (sessionToken: string) =>
  createHmac('sha256', sessionToken).update('burrow-csrf').digest('base64url');

export function csrfMatches(sessionToken: string, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || header.length > 100) return false;
  const expected = Buffer.from(csrfTokenFor(sessionToken));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface LoginLimits {
  /** Failed attempts per client address, and per email from one address, in `windowMs`. */
  maxAttempts: number;
  windowMs: number;
  /** Failed attempts per email from every address together, in `emailWindowMs`. */
  emailMaxAttempts: number;
  emailWindowMs: number;
}

export const sessionIdOf = (token: string) => createHash('sha256').update(token).digest('hex');

export const throttled = (waitMs: number) => {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(
    429,
    'throttled_error',
    'throttled',
    `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    null,
    { 'Retry-After': String(seconds) },
  );
};

/** Starts a session for a user; the returned token is the cookie value and is never stored. */
export async function startSession(deps: MetaDeps, user: UserRecord) {
  const token = randomBytes(32).toString('base64url');
  const now = deps.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await deleteExpiredSessions(deps.meta, now.toISOString());
  await insertSession(deps.meta, {
    id: sessionIdOf(token),
    userId: user.id,
    createdAt: now.toISOString(),
    expiresAt: expiresAt.toISOString(),
  });
  await setLastLogin(deps.meta, user.id, now.toISOString());
  return { token, expiresAt };
}

/**
 * Email and password to a session. Failed attempts are limited per client address, per email from
 * one address, and (more loosely, over a longer window) per email from every address together, so
 * one client cannot try many passwords or many accounts, and guessing one account from many
 * addresses is slow. A victim is never locked out by someone else's tries at their address below
 * the loose limit: the per-email-and-address limit is the victim's own. Successful logins do not
 * count. Each limit is counted before the password is checked (an attempt in flight counts, so
 * parallel requests cannot slip past) and a success takes its counts back.
 */
export async function login(
  deps: MetaDeps,
  counters: Counters,
  limits: LoginLimits,
  input: { email: string; password: string },
  clientIp: string,
) {
  const email = input.email.trim().toLowerCase();
  const counted: string[] = [];
  const count = async (key: string, max: number, windowMs: number) => {
    const hit = await counters.hit(key, windowMs);
    counted.push(key);
    if (hit.count > max) throw throttled(hit.resetInMs);
  };
  // In this order, and a refused attempt stops there: an address already throttled does not count
  // against the emails it tries, so it cannot use up their global allowance.
  await count(`login:ip:${clientIp}`, limits.maxAttempts, limits.windowMs);
  await count(`login:email-ip:${email}|${clientIp}`, limits.maxAttempts, limits.windowMs);
  await count(`login:email:${email}`, limits.emailMaxAttempts, limits.emailWindowMs);

  const user = email === '' ? undefined : await findUserByEmail(deps.meta, email);
  const ok = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !ok || !user.isActive) {
    throw validationError('Invalid email or password.', null, 'invalid_credentials');
  }
  await Promise.all(counted.map((key) => counters.refund(key)));
  return { user, ...(await startSession(deps, user)) };
}

export async function resolveSession(deps: MetaDeps, token: string): Promise<Principal | undefined> {
  if (token.length > 200) return undefined;
  const user = await findSessionUser(deps.meta, sessionIdOf(token), deps.now().toISOString());
  return user?.isActive ? { user, key: null } : undefined;
}

export async function endSession(deps: MetaDeps, token: string): Promise<void> {
  await deleteSession(deps.meta, sessionIdOf(token));
}
