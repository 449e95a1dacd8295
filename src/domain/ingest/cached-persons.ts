import type { PersonCache } from './person-cache.js';
import { wouldUpdatePerson } from './person-updates.js';
import type { EventForPersons, PersonEnrichment } from './persons.js';
import { NO_GROUPS } from './rows.js';

/** Events that change who is who; they always go through the metadata transaction. */
const IDENTITY_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);

/**
 * Person columns for a whole request from the cache alone, or undefined when any event needs the
 * metadata store: an unknown distinct id, an identity event, a property update that changes the
 * person, or a group type not cached yet. Most traffic is known persons sending plain events, and
 * for those the transaction `createPersonProcessor` runs in would read nothing (the cache answers)
 * and write nothing: skipping it gives the same columns without two statements per request.
 * A stale entry (another node changed the person) gives the same result here as there, where only
 * a write would have noticed it.
 */
export function enrichFromCache(
  cache: PersonCache,
  teamId: number,
  events: readonly EventForPersons[],
): PersonEnrichment[] | undefined {
  const out: PersonEnrichment[] = [];
  for (const e of events) {
    if (IDENTITY_EVENTS.has(e.event)) return undefined;
    const person = cache.get(teamId, e.distinctId);
    if (!person || wouldUpdatePerson(person.properties, e.properties)) return undefined;
    let groups = NO_GROUPS;
    const $groups = e.properties.$groups;
    if ($groups && typeof $groups === 'object') {
      groups = ['', '', '', '', ''];
      for (const [type, key] of Object.entries($groups)) {
        const index = cache.groupType(teamId, type);
        if (index === undefined) return undefined;
        if (typeof key === 'string' || typeof key === 'number') groups[index] = String(key);
      }
    }
    out.push({
      personId: person.id,
      // The live object, not a copy: the caller encodes each row before anything can change it.
      personProperties: person.properties,
      personCreatedAt: person.createdAt,
      groups,
    });
  }
  return out;
}
