import { validationError } from '../../errors.js';
import { deleteUserSessions } from '../../store/meta/login-sessions.js';
import { findUserByEmail, setUserPassword, type UserRecord } from '../../store/meta/users.js';
import type { MetaDeps } from '../deps.js';
import type { Principal } from '../principal.js';
import { sessionIdOf } from './login-sessions.js';
import { hashPassword, verifyPassword } from './passwords.js';

/** Django's default minimum, which PostHog keeps; the maximum bounds the hashing work. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

export function checkPasswordRules(password: string, attr = 'password'): void {
  if (password.length < PASSWORD_MIN_LENGTH)
    throw validationError(
      `This password is too short. It must contain at least ${PASSWORD_MIN_LENGTH} characters.`,
      attr,
      'password_too_short',
    );
  if (password.length > PASSWORD_MAX_LENGTH)
    throw validationError(
      `Ensure this field has no more than ${PASSWORD_MAX_LENGTH} characters.`,
      attr,
      'max_length',
    );
}

/**
 * A logged-in user changes their password, proving the current one when they have one (the
 * bootstrap owner starts without). Every other session of theirs ends: a stolen cookie dies with
 * the old password.
 */
export async function changePassword(
  deps: MetaDeps,
  principal: Principal,
  input: { password: string; current_password?: string },
  sessionToken?: string,
): Promise<void> {
  const { user } = principal;
  if (user.passwordHash !== null) {
    if (input.current_password === undefined)
      throw validationError(
        'This field is required when updating your password.',
        'current_password',
        'required',
      );
    if (!(await verifyPassword(input.current_password, user.passwordHash)))
      throw validationError('Your current password is incorrect.', 'current_password', 'incorrect_password');
  }
  checkPasswordRules(input.password);
  await setUserPassword(deps.meta, user.id, await hashPassword(input.password));
  await deleteUserSessions(deps.meta, user.id, sessionToken ? sessionIdOf(sessionToken) : undefined);
}

/** The CLI's way in for an operator: sets a user's password and ends their sessions. */
export async function setPasswordByEmail(
  deps: MetaDeps,
  email: string,
  password: string,
): Promise<UserRecord> {
  const user = await findUserByEmail(deps.meta, email);
  if (!user) throw validationError(`No user with email ${email}.`, 'email', 'not_found');
  checkPasswordRules(password);
  await setUserPassword(deps.meta, user.id, await hashPassword(password));
  await deleteUserSessions(deps.meta, user.id);
  return user;
}
