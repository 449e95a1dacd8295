import { ApiError, permissionDenied, validationError } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import {
  deleteInvitesForEmail,
  type InviteRecord,
  insertInvite,
  invitesForEmail,
} from '../../store/meta/invites.js';
import { findMembership } from '../../store/meta/memberships.js';
import { listOrganizationTeams } from '../../store/meta/teams.js';
import { findUserByEmail, type UserRecord } from '../../store/meta/users.js';
import type { OrganizationAccess } from '../access.js';
import type { MetaDeps } from '../deps.js';
import { newUuid } from '../ids.js';
import type { Principal } from '../principal.js';
import {
  type InviteInput,
  isExpired,
  mergeGrants,
  type ValidInvite,
  validateInvite,
} from './invite-rules.js';
import { newInviteToken } from './invite-token.js';
import { consoleSignupUrl, inviteEmail, type Mailer } from './mail.js';

export const MAX_BULK_INVITES = 20;

export interface InviteDelivery {
  /** null when no SMTP server is configured: invites are made, no email is attempted. */
  mailer: Mailer | null;
  /** Where the accept link points (SITE_URL, else the address the request came to). */
  baseUrl: string;
}

export type InviteWithCreator = InviteRecord & {
  createdBy: UserRecord | null;
  isExpired: boolean;
  /** Set only on creation and only when no email carried the link: the inviter hands it over. */
  inviteUrl?: string;
};

/** In a bulk request an item's field error names the item: `attr` becomes `<index>__<field>`. */
async function forItem<T>(index: number | null, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (index === null || !(error instanceof ApiError) || error.attr === null) throw error;
    throw new ApiError(error.status, error.type, error.code, error.detail, `${index}__${error.attr}`);
  }
}

async function insertOne(
  db: MetaDb,
  orgId: string,
  inviter: { id: number; level: number },
  v: ValidInvite,
  now: Date,
  mail: boolean,
): Promise<{ invite: InviteRecord; token: string }> {
  const user = await findUserByEmail(db, v.targetEmail);
  if (user && (await findMembership(db, orgId, user.id))) {
    throw validationError('A user with this email address already belongs to the organization.');
  }
  let { level, privateProjectAccess } = v;
  if (v.combinePendingInvites) {
    const pending = (await invitesForEmail(db, orgId, v.targetEmail)).filter((i) => !isExpired(i, now));
    level = Math.max(level, ...pending.map((i) => i.level));
    privateProjectAccess = mergeGrants(
      privateProjectAccess,
      pending.map((i) => i.privateProjectAccess),
    );
    // Combining must not re-issue someone else's higher invite under this inviter's name.
    if (level > inviter.level) {
      throw permissionDenied('You cannot invite a user with a higher permission level than your own.');
    }
  }
  // One invite per address: a new one always replaces the older ones, expired or not.
  await deleteInvitesForEmail(db, orgId, v.targetEmail);
  const at = now.toISOString();
  const { token, hash } = newInviteToken();
  const invite: InviteRecord = {
    id: newUuid(),
    organizationId: orgId,
    targetEmail: v.targetEmail,
    firstName: v.firstName,
    createdById: inviter.id,
    emailingAttemptMade: mail && v.sendEmail,
    level,
    message: v.message,
    privateProjectAccess,
    acceptedAt: null,
    createdAt: at,
    updatedAt: at,
    tokenHash: hash,
  };
  await insertInvite(db, invite);
  return { invite, token };
}

/**
 * Creates one invite (`bulk` false) or up to 20 at once, all or nothing: every item is validated
 * before anything is written, and the writes share one transaction. Emails go out after commit.
 */
export async function createInvites(
  deps: MetaDeps,
  access: OrganizationAccess,
  principal: Principal,
  inputs: InviteInput[],
  options: InviteDelivery & { bulk: boolean },
): Promise<InviteWithCreator[]> {
  const orgId = access.organization.id;
  const teams = (await listOrganizationTeams(deps.meta, orgId)).results;
  const index = (i: number) => (options.bulk ? i : null);
  const valid: ValidInvite[] = [];
  for (const [i, input] of inputs.entries()) {
    const item = await forItem(index(i), () => validateInvite(input, access.membership.level, teams));
    if (valid.some((v) => v.targetEmail.toLowerCase() === item.targetEmail.toLowerCase())) {
      throw validationError(
        'This email address appears more than once in the request.',
        `${i}__target_email`,
      );
    }
    valid.push(item);
  }
  const now = deps.now();
  const created = await deps.meta.transaction().execute(async (trx) => {
    const out: Array<{ invite: InviteRecord; token: string }> = [];
    const inviter = { id: principal.user.id, level: access.membership.level };
    for (const [i, v] of valid.entries()) {
      out.push(await forItem(index(i), () => insertOne(trx, orgId, inviter, v, now, !!options.mailer)));
    }
    return out;
  });
  // The secret goes into the invitee's email when one is sent. Otherwise nothing reaches the
  // invitee, so the inviter (who holds the invite write scope) is the only one who gets the link,
  // once, in this answer; the server keeps only the token's hash, so it cannot be shown again.
  for (const { invite, token } of created) {
    if (invite.emailingAttemptMade) {
      options.mailer?.deliver(
        inviteEmail(invite, token, access.organization, principal.user, options.baseUrl),
      );
    }
  }
  return created.map(({ invite, token }) => ({
    ...invite,
    createdBy: principal.user,
    isExpired: false,
    ...(invite.emailingAttemptMade ? {} : { inviteUrl: consoleSignupUrl(options.baseUrl, invite.id, token) }),
  }));
}
