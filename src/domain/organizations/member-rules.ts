import { permissionDenied, validationError } from '../../errors.js';
import type { MembershipRecord } from '../../store/meta/memberships.js';
import { ADMIN, OWNER } from './levels.js';

/**
 * Who may act on another member at all (PATCH and DELETE alike): only admins, only on members of
 * the same organization, and never on someone above them. Acting on yourself always passes here.
 */
export function checkCanActOn(actor: MembershipRecord, target: MembershipRecord): void {
  if (actor.id === target.id) return;
  if (actor.organizationId !== target.organizationId) {
    throw permissionDenied('You both need to belong to the same organization.');
  }
  if (actor.level < ADMIN) throw permissionDenied('You can only edit others if you are an admin.');
  if (target.level > actor.level) {
    throw permissionDenied('You can only edit others with level lower or equal to you.');
  }
}

/**
 * A level change: never your own (so the acting owner always stays one, and an organization never
 * loses its last owner), owner only from an owner, otherwise at most the actor's level.
 */
export function checkLevelChange(actor: MembershipRecord, target: MembershipRecord, level: number): void {
  if (actor.id === target.id) throw permissionDenied("You can't change your own access level.");
  if (level === OWNER) {
    if (actor.level !== OWNER) {
      throw permissionDenied("You can only make another member owner if you're this organization's owner.");
    }
  } else if (level > actor.level) {
    throw permissionDenied(
      'You can only change access level of others to lower or equal to your current one.',
    );
  }
  checkCanActOn(actor, target);
}

/** Owners can neither leave nor be removed, even with other owners around: demote first. */
export function checkCanLeave(target: MembershipRecord): void {
  if (target.level === OWNER) throw validationError('Cannot leave the organization as its owner!');
}
