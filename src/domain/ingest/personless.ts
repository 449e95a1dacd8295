import type { PersonRecord } from '../../store/meta/persons.js';
import type { EventForPersons, PersonEnrichment } from './persons.js';
import { NO_GROUPS } from './rows.js';

/**
 * Events that change who is who: they always go through the metadata transaction, and PostHog
 * drops them when they ask for no person processing.
 */
export const IDENTITY_EVENTS = new Set([
  '$identify',
  '$create_alias',
  '$merge_dangerously',
  '$groupidentify',
]);

/**
 * PostHog's `$process_person_profile` rules, applied to the event's properties in place before
 * any person work (its ingestion's normalisation): only a boolean `false` makes an event
 * personless; such an event loses `$set`, `$set_once` and `$unset` (no person is touched, and no
 * person property is defined from it) and keeps the flag, which is how the rest of ingestion
 * tells it apart (`isPersonless`). Any other value, `true` included, is the default and is
 * removed. `$groupidentify` never updates a person, so it loses the three too. Returns false for
 * an event PostHog drops: an identity event asking for no person.
 */
export function preparePersonMode(e: EventForPersons): boolean {
  const p = e.properties;
  const flag = p.$process_person_profile;
  if (flag === false) {
    if (IDENTITY_EVENTS.has(e.event)) return false;
    stripPersonUpdates(p);
    return true;
  }
  // `in` first: most events (all but posthog-js's) have no flag, and a delete of an absent key
  // still costs a lookup.
  if (flag !== undefined || '$process_person_profile' in p) delete p.$process_person_profile;
  if (e.event === '$groupidentify') stripPersonUpdates(p);
  return true;
}

function stripPersonUpdates(p: Record<string, unknown>): void {
  if (p.$set !== undefined) delete p.$set;
  if (p.$set_once !== undefined) delete p.$set_once;
  if (p.$unset !== undefined) delete p.$unset;
}

/** After `preparePersonMode`: the event asks for no person. */
export const isPersonless = (e: EventForPersons): boolean => e.properties.$process_person_profile === false;

/** What PostHog writes as a personless event's `person_created_at` (a marker, 5 s after the epoch). */
export const PERSONLESS_CREATED_AT = '1970-01-01T00:00:05.000Z';

const NO_PROPERTIES: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

/**
 * A personless event's person columns: the distinct id's person when it has one (its id and
 * creation time, never its properties), else PostHog's deterministic id for the distinct id
 * (`personlessId`, `uuidFromDistinctId` of person-uuid.ts) and the marker time. No `$group_N`
 * columns: PostHog derives them only for events that process a person.
 */
export function personlessEnrichment(
  person: PersonRecord | undefined,
  personlessId: string,
): PersonEnrichment {
  return {
    personId: person ? person.id : personlessId,
    personProperties: NO_PROPERTIES,
    personPropertiesJson: '{}',
    personCreatedAt: person ? person.createdAt : PERSONLESS_CREATED_AT,
    groups: NO_GROUPS,
  };
}
