import { validationError } from '../../errors.js';
import { isUniqueViolation } from '../../store/meta/errors.js';
import { findInvite, type InviteRecord, markInviteAccepted } from '../../store/meta/invites.js';
import { insertProjectAccess } from '../../store/meta/members.js';
import { findMembership, insertMembership } from '../../store/meta/memberships.js';
import { findOrganization, type OrganizationRecord } from '../../store/meta/organizations.js';
import { listOrganizationTeams } from '../../store/meta/teams.js';
import { findUserByEmail, insertUser, setUserCurrent, type UserRecord } from '../../store/meta/users.js';
import type { MetaDeps } from '../deps.js';
import { isUuid, newUuid } from '../ids.js';
import { isExpired, normalizeEmail } from '../organizations/invite-rules.js';
import { inviteTokenMatches } from '../organizations/invite-token.js';
import type { Principal } from '../principal.js';
import { text } from '../validate.js';
import { hashPassword } from './passwords.js';

export interface SignupInput {
  /** The invite's secret, from the invite email. */
  token?: string;
  first_name?: string;
  last_name?: string;
  password?: string;
  email?: string;
}

const alreadyUsed = () => validationError('This invite has already been used.', null, 'already_used');
const accountExists = () =>
  validationError(
    'An account with this email address already exists. Log in, then accept the invite with that session.',
    null,
    'account_exists',
  );

/** A usable invite and its organization; anything else is a 400 saying why. */
export async function inviteForSignup(
  deps: MetaDeps,
  inviteId: string,
): Promise<{ invite: InviteRecord; organization: OrganizationRecord }> {
  const invite = isUuid(inviteId) ? await findInvite(deps.meta, inviteId.toLowerCase()) : undefined;
  const organization = invite && (await findOrganization(deps.meta, invite.organizationId));
  if (!invite || !organization) throw validationError('The provided invite ID is not valid.');
  if (invite.acceptedAt) throw alreadyUsed();
  if (isExpired(invite, deps.now())) {
    throw validationError('This invite has expired. Ask the organization for a new one.', null, 'expired');
  }
  return { invite, organization };
}

function required<T>(value: T | undefined, attr: string): T {
  if (value === undefined) throw validationError('This field is required.', attr, 'required');
  return value;
}

/**
 * Accepts an invite. Without a session this creates the account (name and password) for the
 * invited address; with one, the logged-in user joins, provided the invite is for their address.
 * The membership gets the invite's level and project access; the invite can never be used again.
 */
export async function acceptInvite(
  deps: MetaDeps,
  inviteId: string,
  input: SignupInput,
  caller: Principal | undefined,
): Promise<{ user: UserRecord; organization: OrganizationRecord; level: number; created: boolean }> {
  const { invite, organization } = await inviteForSignup(deps, inviteId);
  // The id is known to every member (they list invites); only the invitee has the token.
  if (!inviteTokenMatches(invite, required(input.token, 'token'))) {
    throw validationError(
      'This invite token is not valid. Use the token from the invite email.',
      'token',
      'invalid_token',
    );
  }
  const target = invite.targetEmail.toLowerCase();
  const claimed = input.email === undefined ? undefined : normalizeEmail(input.email).toLowerCase();
  if ((claimed !== undefined && claimed !== target) || (caller && caller.user.email !== target)) {
    throw validationError('This invite is for another email address.', null, 'invalid_recipient');
  }
  let passwordHash: string | null = null;
  let firstName = '';
  if (!caller) {
    if (await findUserByEmail(deps.meta, target)) throw accountExists();
    firstName = text(required(input.first_name, 'first_name'), 'first_name', 150);
    passwordHash = await hashPassword(required(input.password, 'password'));
  }
  const at = deps.now().toISOString();
  const teams = (await listOrganizationTeams(deps.meta, organization.id)).results;
  const user = await deps.meta.transaction().execute(async (trx) => {
    const user =
      caller?.user ??
      (await insertUser(trx, {
        uuid: newUuid(),
        distinctId: newUuid(),
        email: target,
        firstName,
        lastName: (input.last_name ?? '').trim().slice(0, 150),
        passwordHash,
        isActive: true,
        isEmailVerified: false,
        currentOrganizationId: null,
        currentTeamId: null,
        createdAt: at,
        lastLogin: null,
      }).catch((error) => {
        throw isUniqueViolation(error) ? accountExists() : error;
      }));
    if (await findMembership(trx, organization.id, user.id)) {
      throw validationError('You are already a member of this organization.', null, 'user_already_member');
    }
    if (!(await markInviteAccepted(trx, invite.id, at))) throw alreadyUsed();
    const membershipId = newUuid();
    await insertMembership(trx, {
      id: membershipId,
      organizationId: organization.id,
      userId: user.id,
      level: invite.level,
      joinedAt: at,
      updatedAt: at,
    });
    const inOrg = new Set(teams.map((t) => t.id));
    await insertProjectAccess(
      trx,
      membershipId,
      invite.privateProjectAccess.filter((g) => inOrg.has(g.id)),
    );
    if (!user.currentOrganizationId) {
      await setUserCurrent(trx, user.id, { organizationId: organization.id, teamId: teams[0]?.id ?? null });
    }
    return user;
  });
  return { user, organization, level: invite.level, created: !caller };
}
