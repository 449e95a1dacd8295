import { notFound } from '../../errors.js';
import { findInvite, listInvites, deleteInvite as storeDelete } from '../../store/meta/invites.js';
import { usersByIds } from '../../store/meta/members.js';
import type { OrganizationAccess } from '../access.js';
import type { MetaDeps } from '../deps.js';
import { isUuid } from '../ids.js';
import type { InviteWithCreator } from './invite-create.js';
import { isExpired } from './invite-rules.js';

export { createInvites, type InviteWithCreator, MAX_BULK_INVITES } from './invite-create.js';

export async function listOrganizationInvites(
  deps: MetaDeps,
  access: OrganizationAccess,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: InviteWithCreator[] }> {
  const { count, results } = await listInvites(deps.meta, access.organization.id, page);
  const ids = [...new Set(results.map((i) => i.createdById).filter((id): id is number => id !== null))];
  const users = new Map((await usersByIds(deps.meta, ids)).map((u) => [u.id, u]));
  const now = deps.now();
  return {
    count,
    results: results.map((i) => ({
      ...i,
      createdBy: (i.createdById !== null && users.get(i.createdById)) || null,
      isExpired: isExpired(i, now),
    })),
  };
}

/** Any member may withdraw a pending invite. */
export async function deleteInvite(deps: MetaDeps, access: OrganizationAccess, id: string): Promise<void> {
  const invite = isUuid(id) ? await findInvite(deps.meta, id.toLowerCase()) : undefined;
  if (!invite || invite.organizationId !== access.organization.id || invite.acceptedAt) throw notFound();
  await storeDelete(deps.meta, invite.id);
}
