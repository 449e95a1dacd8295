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

/**
 * The console's signup page. The token travels in the fragment, which browsers never send to a
 * server: it stays out of access logs, proxies and Referer headers.
 */
export const consoleSignupUrl = (baseUrl: string, inviteId: string, token: string) =>
  `${baseUrl.replace(/\/+$/, '')}/signup/${inviteId}#token=${encodeURIComponent(token)}`;

export function inviteEmail(
  invite: InviteRecord,
  token: string,
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
    'To accept, open this link and choose a password:',
    '',
    `  ${consoleSignupUrl(baseUrl, invite.id, token)}`,
    '',
    'Or create your account through the API by posting your name, a password (8 characters or more)',
    'and this invite token to:',
    '',
    `  ${url}`,
    '',
    `  token: ${token}`,
    '',
    `  curl -X POST '${url}' -H 'Content-Type: application/json' \\`,
    `    -d '{"token": "${token}", "first_name": "Your name", "password": "a long password"}'`,
    '',
    'Already have an account here? Send only the token, logged in (session cookie).',
    'The token is yours alone: whoever has it can join as you.',
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
