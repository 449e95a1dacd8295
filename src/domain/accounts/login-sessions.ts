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
  maxAttempts: number;
  windowMs: number;
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
 * Email and password to a session. Every attempt counts against both the address and the client
 * (successful ones too, as each costs a memory-hard hash), so neither one account nor one client
 * can try passwords quickly.
 */
export async function login(
  deps: MetaDeps,
  counters: Counters,
  limits: LoginLimits,
  input: { email: string; password: string },
  clientIp: string,
) {
  const email = input.email.trim().toLowerCase();
  // An address already throttled is refused before its attempt counts against the email: one
  // client cannot lock someone else's account out by trying it from a throttled address.
  const ip = await counters.hit(`login:ip:${clientIp}`, limits.windowMs);
  if (ip.count > limits.maxAttempts) throw throttled(ip.resetInMs);
  const byEmail = await counters.hit(`login:email:${email}`, limits.windowMs);
  if (byEmail.count > limits.maxAttempts) throw throttled(byEmail.resetInMs);

  const user = email === '' ? undefined : await findUserByEmail(deps.meta, email);
  const ok = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !ok || !user.isActive) {
    throw validationError('Invalid email or password.', null, 'invalid_credentials');
  }
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
