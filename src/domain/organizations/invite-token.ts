import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type InviteRecord, setInviteTokenHash } from '../../store/meta/invites.js';
import type { MetaDeps } from '../deps.js';
import { isUuid } from '../ids.js';

/**
 * The secret that makes an invite acceptable. Only the invitee gets it (in the invite email, or
 * from the operator's `invites link` command); the store keeps its SHA-256 only, and no API
 * response carries it. The invite's id is no secret: every member can list invites.
 */
export interface InviteToken {
  token: string;
  hash: string;
}

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** 256 random bits, base64url (43 characters). */
export function newInviteToken(): InviteToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashOf(token) };
}

/** Whether `token` is the invite's secret (constant-time over the hashes). */
export function inviteTokenMatches(invite: Pick<InviteRecord, 'tokenHash'>, token: string): boolean {
  if (!invite.tokenHash || token.length === 0 || token.length > 256) return false;
  const given = Buffer.from(hashOf(token), 'hex');
  const stored = Buffer.from(invite.tokenHash, 'hex');
  return stored.length === given.length && timingSafeEqual(stored, given);
}

/** A fresh secret for a pending invite (the old one stops working); null when there is none. */
export async function reissueInviteToken(deps: MetaDeps, inviteId: string): Promise<string | null> {
  if (!isUuid(inviteId)) return null;
  const { token, hash } = newInviteToken();
  return (await setInviteTokenHash(deps.meta, inviteId.toLowerCase(), hash)) ? token : null;
}
