import type { PersonRecord } from '../../store/meta/persons.js';
import type { PersonCache } from './person-cache.js';
import { wouldUpdatePerson } from './person-updates.js';
import { IDENTITY_EVENTS, isPersonless, personlessEnrichment } from './personless.js';
import type { EventForPersons, PersonEnrichment } from './persons.js';
import { NO_GROUPS } from './rows.js';

/**
 * Each cached person's properties as JSON text, made once per version instead of once per event:
 * a person's properties are the same for every event it sends until a `$set` changes them, and a
 * posthog-js person carries dozens of keys (`$initial_*`, browser, OS). Valid while the record
 * keeps the same version and the same properties object: every change to a person either replaces
 * the object or bumps the version in the same synchronous step (`applyPersonUpdates` then
 * `version += 1` in persons.ts), and a rolled-back change leaves the bumped record out of the
 * cache. Keyed weakly by the record, so it goes with it.
 */
const propertiesText = new WeakMap<PersonRecord, { version: number; of: object; text: string }>();

export function personPropertiesJson(person: PersonRecord): string {
  const memo = propertiesText.get(person);
  if (memo && memo.version === person.version && memo.of === person.properties) return memo.text;
  const text = JSON.stringify(person.properties);
  propertiesText.set(person, { version: person.version, of: person.properties, text });
  return text;
}

/**
 * Person columns for a whole request from the cache alone, or undefined when any event needs the
 * metadata store: an unknown distinct id (for a personless event: neither a cached person nor a
 * cached absence), an identity event, a property update that changes the person, or a group type
 * not cached yet. Most traffic is known persons sending plain events, and for those the
 * transaction `createPersonProcessor` runs in would read nothing (the cache answers) and write
 * nothing: skipping it gives the same columns without two statements per request.
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
    if (isPersonless(e)) {
      const person = cache.get(teamId, e.distinctId);
      const id = person ? person.id : cache.personlessId(teamId, e.distinctId);
      if (id === undefined) return undefined;
      out.push(personlessEnrichment(person, id));
      continue;
    }
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
      personPropertiesJson: personPropertiesJson(person),
      personCreatedAt: person.createdAt,
      groups,
    });
  }
  return out;
}
