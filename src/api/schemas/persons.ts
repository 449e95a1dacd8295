import { Type } from 'typebox';
import { personName, sortedDistinctIds } from '../../domain/persons/persons.js';
import type { PersonWithIds } from '../../store/meta/person-admin.js';
import { Nullable, ProjectIdParams } from './common.js';

export const Person = Type.Object({
  id: Type.String(),
  uuid: Type.String(),
  name: Type.String(),
  distinct_ids: Type.Array(Type.String()),
  properties: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
  is_identified: Type.Boolean(),
});

export const PersonPage = Type.Object({
  next: Nullable(Type.String()),
  previous: Nullable(Type.String()),
  results: Type.Array(Person),
});

export const PersonIdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String() });

export const PersonListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  search: Type.Optional(Type.String()),
  distinct_id: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  properties: Type.Optional(Type.String({ description: 'JSON list of person property filters' })),
  uuid: Type.Optional(Type.String({ description: 'Comma-separated person uuids' })),
  cohort: Type.Optional(Type.Integer({ description: 'Only members of this cohort' })),
});

export function toPerson(p: PersonWithIds) {
  return {
    id: p.id,
    uuid: p.id,
    name: personName(p),
    distinct_ids: sortedDistinctIds(p.distinctIds),
    properties: p.properties,
    created_at: p.createdAt,
    is_identified: p.isIdentified,
  };
}
