import { createHash, randomBytes } from 'node:crypto';
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

export interface LoginLimits {
  maxAttempts: number;
  windowMs: number;
}

const sessionId = (token: string) => createHash('sha256').update(token).digest('hex');

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
    id: sessionId(token),
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
  const hits = await Promise.all([
    counters.hit(`login:ip:${clientIp}`, limits.windowMs),
    counters.hit(`login:email:${email}`, limits.windowMs),
  ]);
  const over = hits.filter((h) => h.count > limits.maxAttempts);
  if (over.length > 0) throw throttled(Math.max(...over.map((h) => h.resetInMs)));

  const user = email === '' ? undefined : await findUserByEmail(deps.meta, email);
  const ok = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !ok || !user.isActive) {
    throw validationError('Invalid email or password.', null, 'invalid_credentials');
  }
  return { user, ...(await startSession(deps, user)) };
}

export async function resolveSession(deps: MetaDeps, token: string): Promise<Principal | undefined> {
  if (token.length > 200) return undefined;
  const user = await findSessionUser(deps.meta, sessionId(token), deps.now().toISOString());
  return user?.isActive ? { user, key: null } : undefined;
}

export async function endSession(deps: MetaDeps, token: string): Promise<void> {
  await deleteSession(deps.meta, sessionId(token));
}
