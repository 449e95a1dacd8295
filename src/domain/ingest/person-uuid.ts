import { createHash } from 'node:crypto';

/**
 * PostHog's namespace for person ids derived from distinct ids (its ingestion's
 * `uuidFromDistinctId`): the same (team, distinct id) gives the same id there and here, so a
 * personless event's `person_id` is the one PostHog would have written.
 */
const PERSON_NAMESPACE = Buffer.from('932979b465c3442484670b66ec27bc22', 'hex');

/** RFC 4122 version 5 (SHA-1) of `${teamId}:${distinctId}` in PostHog's person namespace. */
export function uuidFromDistinctId(teamId: number, distinctId: string): string {
  const hash = createHash('sha1').update(PERSON_NAMESPACE).update(`${teamId}:${distinctId}`, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
