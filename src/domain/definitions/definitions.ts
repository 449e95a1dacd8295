import { notFound, validationError } from '../../errors.js';
import {
  deleteEventDefinition,
  deletePropertyDefinition,
  type EventDefinitionRecord,
  findEventDefinition,
  findPropertyDefinition,
  listEventDefinitions,
  listPropertyDefinitions,
  type PropertyDefinitionFilter,
  type PropertyDefinitionRecord,
  updateEventDefinition,
  updatePropertyDefinition,
} from '../../store/meta/definitions.js';
import type { ProjectAccess } from '../access.js';
import type { MetaDeps } from '../deps.js';
import { isUuid } from '../ids.js';
import { PROPERTY_PARENT } from './detect.js';
import { forgetTypedContext } from './typed-context.js';

type Page = { limit: number; offset: number };

export async function eventDefinitions(
  deps: MetaDeps,
  access: ProjectAccess,
  q: { search?: string | undefined; exclude_hidden?: boolean | undefined; names?: string[] | undefined },
  page: Page,
) {
  return listEventDefinitions(
    deps.meta,
    access.team.id,
    { search: q.search, excludeHidden: q.exclude_hidden, names: q.names },
    page,
  );
}

export async function eventDefinition(
  deps: MetaDeps,
  access: ProjectAccess,
  by: { id: string } | { name: string },
): Promise<EventDefinitionRecord> {
  if ('id' in by && !isUuid(by.id)) throw notFound();
  const found = await findEventDefinition(deps.meta, access.team.id, by);
  if (!found) throw notFound();
  return found;
}

export interface DefinitionChanges {
  description?: string | null | undefined;
  tags?: string[] | undefined;
  verified?: boolean | undefined;
  hidden?: boolean | undefined;
}

const clean = (c: DefinitionChanges) => ({
  ...(c.description !== undefined ? { description: c.description } : {}),
  ...(c.tags !== undefined ? { tags: [...new Set(c.tags)] } : {}),
  ...(c.verified !== undefined ? { verified: c.verified } : {}),
  ...(c.hidden !== undefined ? { hidden: c.hidden } : {}),
});

export async function changeEventDefinition(
  deps: MetaDeps,
  access: ProjectAccess,
  id: string,
  changes: DefinitionChanges,
): Promise<EventDefinitionRecord> {
  await eventDefinition(deps, access, { id });
  await updateEventDefinition(deps.meta, id, clean(changes), deps.now().toISOString());
  return eventDefinition(deps, access, { id });
}

export async function removeEventDefinition(deps: MetaDeps, access: ProjectAccess, id: string) {
  await eventDefinition(deps, access, { id });
  await deleteEventDefinition(deps.meta, access.team.id, id);
}

const TYPES: Record<string, number> = {
  event: PROPERTY_PARENT.event,
  person: PROPERTY_PARENT.person,
  group: PROPERTY_PARENT.group,
  session: PROPERTY_PARENT.session,
};

export const PROPERTY_TYPES = ['String', 'Numeric', 'Boolean', 'DateTime', 'Duration'];

/** A JSON list of strings from a query parameter (PostHog's `event_names`, `excluded_properties`). */
function jsonList(raw: string | undefined, attr: string): string[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError(`${attr} must be a JSON list of strings.`, attr);
  }
  if (!Array.isArray(parsed) || !parsed.every((s) => typeof s === 'string'))
    throw validationError(`${attr} must be a JSON list of strings.`, attr);
  if (parsed.length > 200) throw validationError(`${attr} may name at most 200 items.`, attr);
  return parsed as string[];
}

export interface PropertyDefinitionQuery {
  type?: string | undefined;
  group_type_index?: number | undefined;
  search?: string | undefined;
  event_names?: string | undefined;
  filter_by_event_names?: boolean | undefined;
  is_numerical?: boolean | undefined;
  property_type?: string | undefined;
  properties?: string | undefined;
  excluded_properties?: string | undefined;
  exclude_core_properties?: boolean | undefined;
  is_feature_flag?: boolean | undefined;
  exclude_hidden?: boolean | undefined;
}

/** PostHog's property_definitions filters, checked (unknown values are a 400, never ignored). */
export async function propertyDefinitions(
  deps: MetaDeps,
  access: ProjectAccess,
  q: PropertyDefinitionQuery,
  page: Page,
) {
  const typeName = q.type ?? 'event';
  const type = TYPES[typeName];
  if (type === undefined)
    throw validationError(`"${typeName}" is not a valid choice (event, person, group, session).`, 'type');
  if (type === PROPERTY_PARENT.group && q.group_type_index === undefined)
    throw validationError('group_type_index is required when type is group.', 'group_type_index');
  if (q.group_type_index !== undefined && type !== PROPERTY_PARENT.group)
    throw validationError('group_type_index is only valid when type is group.', 'group_type_index');
  if (q.property_type !== undefined && !PROPERTY_TYPES.includes(q.property_type))
    throw validationError(`"${q.property_type}" is not a valid choice.`, 'property_type');
  const events = jsonList(q.event_names, 'event_names');
  const filter: PropertyDefinitionFilter = {
    type,
    groupTypeIndex: type === PROPERTY_PARENT.group ? q.group_type_index : undefined,
    search: q.search,
    isNumerical: q.is_numerical,
    propertyType: q.property_type,
    names: q.properties !== undefined && q.properties !== '' ? q.properties.split(',') : undefined,
    excludeNames: jsonList(q.excluded_properties, 'excluded_properties'),
    excludeHidden: q.exclude_hidden,
    featureFlags: q.is_feature_flag,
    excludeCore: q.exclude_core_properties,
  };
  if (events && type === PROPERTY_PARENT.event) {
    if (q.filter_by_event_names) filter.onEvents = events;
    else filter.rankEvents = events;
  }
  return listPropertyDefinitions(deps.meta, access.team.id, filter, page);
}

export async function propertyDefinition(
  deps: MetaDeps,
  access: ProjectAccess,
  id: string,
): Promise<PropertyDefinitionRecord> {
  if (!isUuid(id)) throw notFound();
  const found = await findPropertyDefinition(deps.meta, access.team.id, id);
  if (!found) throw notFound();
  return found;
}

export async function changePropertyDefinition(
  deps: MetaDeps,
  access: ProjectAccess,
  id: string,
  changes: DefinitionChanges & { property_type?: string | null | undefined },
): Promise<PropertyDefinitionRecord> {
  await propertyDefinition(deps, access, id);
  if (
    changes.property_type !== undefined &&
    changes.property_type !== null &&
    !PROPERTY_TYPES.includes(changes.property_type)
  )
    throw validationError(`"${changes.property_type}" is not a valid choice.`, 'property_type');
  await updatePropertyDefinition(
    deps.meta,
    id,
    {
      ...clean(changes),
      ...(changes.property_type !== undefined ? { propertyType: changes.property_type } : {}),
    },
    deps.now().toISOString(),
  );
  // A changed type changes how queries compile.
  forgetTypedContext(deps, access.team.id);
  return propertyDefinition(deps, access, id);
}

export async function removePropertyDefinition(deps: MetaDeps, access: ProjectAccess, id: string) {
  await propertyDefinition(deps, access, id);
  await deletePropertyDefinition(deps.meta, access.team.id, id);
  forgetTypedContext(deps, access.team.id);
}
