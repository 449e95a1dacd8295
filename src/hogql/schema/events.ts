import { call, type Expr, field } from '../ast.js';
import { col, type FieldDef, type TableDef } from './fields.js';
import { rawEventColumns } from './raw.js';

/**
 * PostHog's `personsOnEventsMode` modifier: where `events.person_id` and `events.person` come
 * from. Ingestion writes the person's id, properties and creation time onto every event as they
 * were when the event was processed (`person_id`, `person_properties`, `person_created_at`); the
 * modes choose between those and the persons tables.
 */
export const PERSONS_ON_EVENTS_MODES = [
  'disabled',
  'person_id_no_override_properties_on_events',
  'person_id_override_properties_on_events',
  'person_id_override_properties_joined',
] as const;

export type PersonsOnEventsMode = (typeof PERSONS_ON_EVENTS_MODES)[number];

/**
 * PostHog's self-hosted default (`person_on_events_mode_flag_based_default` without its instance
 * settings `PERSON_ON_EVENTS_ENABLED` / `PERSON_ON_EVENTS_V2_ENABLED`, both off by default).
 */
export const DEFAULT_PERSONS_ON_EVENTS_MODE: PersonsOnEventsMode = 'person_id_override_properties_joined';

export function isPersonsOnEventsMode(v: unknown): v is PersonsOnEventsMode {
  return typeof v === 'string' && (PERSONS_ON_EVENTS_MODES as readonly string[]).includes(v);
}

const groupJoins: Record<string, FieldDef> = Object.fromEntries(
  [0, 1, 2, 3, 4].map((i) => [
    `group_${i}`,
    {
      kind: 'lazy_join',
      table: 'groups',
      join: 'LEFT JOIN',
      from: `$group_${i}`,
      to: 'key',
      where: { field: 'index', value: i },
    } satisfies FieldDef,
  ]),
);

/**
 * The person a distinct id belongs to now where it has a mapping (so merges apply to past
 * events), else the id written at ingestion. PostHog reads a table of overrides (distinct ids
 * moved by a merge); Burrow's `person_distinct_id2` holds every current mapping, which gives the
 * same person for every event whose distinct id was merged and for every other mapped one.
 */
const overriddenPersonId = (): Expr =>
  call('if', [
    call('empty', [field('pdi', 'person_id')]),
    field('event_person_id'),
    field('pdi', 'person_id'),
  ]);

const personIdField = (expr: () => Expr): FieldDef => ({
  kind: 'expression',
  data: 'uuid',
  hidden: true,
  expr,
});

/** `poe`: the person as the event row holds it, no join; `id` is the mode's `person_id`. */
const poe = (id: FieldDef): FieldDef => ({
  kind: 'virtual',
  fields: {
    id,
    created_at: col('person_created_at', 'datetime'),
    properties: col('person_properties', 'json'),
  },
});

const eventPersonId = col('person_id', 'uuid');

function personFields(mode: PersonsOnEventsMode): Record<string, FieldDef> {
  switch (mode) {
    case 'disabled':
      // Only the mapping tables: the columns written at ingestion are not read.
      return {
        person_id: personIdField(() => field('pdi', 'person_id')),
        person: { kind: 'traverser', chain: ['pdi', 'person'] },
        poe: poe(eventPersonId),
      };
    case 'person_id_no_override_properties_on_events':
      return {
        person_id: col('person_id', 'uuid', { hidden: true }),
        person: { kind: 'traverser', chain: ['poe'] },
        poe: poe(eventPersonId),
      };
    case 'person_id_override_properties_on_events':
      return {
        person_id: personIdField(overriddenPersonId),
        person: { kind: 'traverser', chain: ['poe'] },
        poe: poe(personIdField(overriddenPersonId)),
      };
    case 'person_id_override_properties_joined':
      return {
        person_id: personIdField(overriddenPersonId),
        person: { kind: 'lazy_join', table: 'persons', join: 'LEFT JOIN', from: 'person_id', to: 'id' },
        poe: poe(eventPersonId),
      };
  }
}

function eventsTable(mode: PersonsOnEventsMode): TableDef {
  return {
    name: 'events',
    physical: 'events',
    final: true,
    fields: {
      ...rawEventColumns,
      event_person_id: col('person_id', 'uuid', { hidden: true }),
      pdi: {
        kind: 'lazy_join',
        table: 'person_distinct_ids',
        // PostHog's `disabled` mode joins persons through their distinct ids only (an INNER JOIN:
        // events of unmapped distinct ids, e.g. a deleted person's, have no person); the other
        // modes fall back to the id on the event.
        join: mode === 'disabled' ? 'INNER JOIN' : 'LEFT JOIN',
        from: 'distinct_id',
        to: 'distinct_id',
      },
      ...personFields(mode),
      session: {
        kind: 'lazy_join',
        table: 'sessions',
        join: 'LEFT JOIN',
        from: '$session_id',
        to: 'session_id',
      },
      ...groupJoins,
    },
  };
}

const BY_MODE = new Map(PERSONS_ON_EVENTS_MODES.map((m) => [m, eventsTable(m)]));

/** The events table as a query in `mode` sees it. */
export function eventsFor(mode: PersonsOnEventsMode): TableDef {
  return BY_MODE.get(mode) as TableDef;
}

/**
 * Events in the default mode. `person_id` is the person the distinct id belongs to now, falling
 * back to the id written at ingestion; `person` is that person's current row (a join); `poe`
 * reads the person as it was when the event arrived, from the event row itself.
 */
export const events: TableDef = eventsFor(DEFAULT_PERSONS_ON_EVENTS_MODE);
