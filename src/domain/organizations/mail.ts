import type { InviteRecord } from '../../store/meta/invites.js';
import type { OrganizationRecord } from '../../store/meta/organizations.js';
import type { UserRecord } from '../../store/meta/users.js';
import { inviteExpiresAt } from './invite-rules.js';

export interface OutgoingEmail {
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
}

/**
 * Sends mail in the background: `deliver` returns at once, a failure is logged by the
 * implementation (the invite stays valid and can be re-sent by inviting again).
 */
export interface Mailer {
  deliver(email: OutgoingEmail): void;
}

const LEVEL_NAMES: Record<number, string> = { 1: 'member', 8: 'administrator', 15: 'owner' };

// Names end up in a header: no line breaks, whatever a user typed.
const oneLine = (value: string) => value.replace(/[\r\n\t]+/g, ' ').trim();

export const signupUrl = (baseUrl: string, inviteId: string) =>
  `${baseUrl.replace(/\/+$/, '')}/api/signup/${inviteId}/`;

export function inviteEmail(
  invite: InviteRecord,
  organization: OrganizationRecord,
  inviter: UserRecord,
  baseUrl: string,
): OutgoingEmail {
  const inviterName = oneLine(`${inviter.firstName} ${inviter.lastName}`) || inviter.email;
  const url = signupUrl(baseUrl, invite.id);
  const expires = inviteExpiresAt(invite);
  const lines = [
    `Hi${invite.firstName ? ` ${oneLine(invite.firstName)}` : ''},`,
    '',
    `${inviterName} (${inviter.email}) invited you to join ${oneLine(organization.name)} on Burrow as ${
      LEVEL_NAMES[invite.level] ?? 'member'
    }.`,
    ...(invite.message ? ['', 'Their message:', ...invite.message.split(/\r?\n/).map((l) => `> ${l}`)] : []),
    '',
    'To accept, create your account by posting your name and a password (8 characters or more) to:',
    '',
    `  ${url}`,
    '',
    `  curl -X POST '${url}' -H 'Content-Type: application/json' \\`,
    `    -d '{"first_name": "Your name", "password": "a long password"}'`,
    '',
    `A GET on the same address shows the invite. It expires on ${expires.toUTCString()}.`,
  ];
  return {
    to: invite.targetEmail,
    replyTo: inviter.email,
    subject: oneLine(`${inviterName} invited you to join ${organization.name} on Burrow`),
    text: `${lines.join('\n')}\n`,
  };
}
