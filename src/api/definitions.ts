import { Type } from 'typebox';
import {
  changeEventDefinition,
  changePropertyDefinition,
  eventDefinition,
  eventDefinitions,
  PROPERTY_TYPES,
  propertyDefinition,
  propertyDefinitions,
  removeEventDefinition,
  removePropertyDefinition,
} from '../domain/definitions/definitions.js';
import { scope } from '../domain/scopes.js';
import { projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { EventDefinitionRecord, PropertyDefinitionRecord } from '../store/meta/definitions.js';
import type { ApiPlugin } from './context.js';
import { Nullable, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const EventDefinition = Type.Object({
  id: Type.String(),
  name: Type.String(),
  owner: Type.Null(),
  description: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  created_at: Type.String(),
  updated_at: Nullable(Type.String()),
  updated_by: Type.Null(),
  last_seen_at: Nullable(Type.String()),
  last_updated_at: Nullable(Type.String()),
  verified: Type.Boolean(),
  verified_at: Nullable(Type.String()),
  verified_by: Type.Null(),
  hidden: Type.Boolean(),
  is_action: Type.Boolean(),
  post_to_slack: Type.Boolean(),
  default_columns: Type.Array(Type.String()),
});

const PropertyDefinition = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  tags: Type.Array(Type.String()),
  is_numerical: Type.Boolean(),
  property_type: Nullable(Type.String()),
  type: Type.Integer(),
  group_type_index: Nullable(Type.Integer()),
  updated_at: Nullable(Type.String()),
  updated_by: Type.Null(),
  is_seen_on_filtered_events: Nullable(Type.Boolean()),
  verified: Type.Boolean(),
  verified_at: Nullable(Type.String()),
  verified_by: Type.Null(),
  hidden: Type.Boolean(),
});

const toEventDefinition = (d: EventDefinitionRecord) => ({
  id: d.id,
  name: d.name,
  owner: null,
  description: d.description,
  tags: d.tags,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
  updated_by: null,
  last_seen_at: d.lastSeenAt,
  last_updated_at: d.updatedAt,
  verified: d.verified,
  verified_at: d.verifiedAt,
  verified_by: null,
  hidden: d.hidden,
  is_action: false,
  post_to_slack: false,
  default_columns: [],
});

const toPropertyDefinition = (d: PropertyDefinitionRecord & { seenOnEvents?: boolean | null }) => ({
  id: d.id,
  name: d.name,
  description: d.description,
  tags: d.tags,
  is_numerical: d.isNumerical,
  property_type: d.propertyType,
  type: d.type,
  group_type_index: d.groupTypeIndex,
  updated_at: d.updatedAt,
  updated_by: null,
  is_seen_on_filtered_events: d.seenOnEvents ?? null,
  verified: d.verified,
  verified_at: d.verifiedAt,
  verified_by: null,
  hidden: d.hidden,
});

const Changes = {
  description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  tags: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 })),
  verified: Type.Optional(Type.Boolean()),
  hidden: Type.Optional(Type.Boolean()),
};

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String() });

export const definitionRoutes: ApiPlugin = async (app, { deps }) => {
  const eventRead = { scope: scope('event_definition', 'read') };
  const eventWrite = { scope: scope('event_definition', 'write') };
  const propRead = { scope: scope('property_definition', 'read') };
  const propWrite = { scope: scope('property_definition', 'write') };
  for (const prefix of PROJECT_PREFIXES) {
    const events = `${prefix}event_definitions/`;
    app.get(
      events,
      {
        config: eventRead,
        schema: {
          tags: ['event_definitions'],
          summary: 'Event names seen by ingestion, most recently seen first',
          params: ProjectIdParams,
          querystring: Type.Object({
            ...PageQuery.properties,
            search: Type.Optional(Type.String({ maxLength: 400 })),
            exclude_hidden: Type.Optional(Type.Boolean()),
            event_type: Type.Optional(
              Type.Union([Type.Literal('all'), Type.Literal('event'), Type.Literal('action_event')]),
            ),
          }),
          response: { 200: Paginated(EventDefinition) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const out = await eventDefinitions(deps, projectAccessOf(request), request.query, page);
        return paginate(request, page, { count: out.count, results: out.results.map(toEventDefinition) });
      },
    );
    app.get(
      `${events}by_name/`,
      {
        config: eventRead,
        schema: {
          tags: ['event_definitions'],
          summary: 'One event definition by name',
          params: ProjectIdParams,
          querystring: Type.Object({ name: Type.String({ minLength: 1, maxLength: 400 }) }),
          response: { 200: EventDefinition },
        },
      },
      async (request) =>
        toEventDefinition(
          await eventDefinition(deps, projectAccessOf(request), { name: request.query.name }),
        ),
    );
    app.get(
      `${events}:id/`,
      {
        config: eventRead,
        schema: {
          tags: ['event_definitions'],
          summary: 'One event definition',
          params: IdParams,
          response: { 200: EventDefinition },
        },
      },
      async (request) =>
        toEventDefinition(await eventDefinition(deps, projectAccessOf(request), { id: request.params.id })),
    );
    for (const method of ['patch', 'put'] as const) {
      app[method](
        `${events}:id/`,
        {
          config: eventWrite,
          schema: {
            tags: ['event_definitions'],
            summary: 'Change description, tags, verified or hidden',
            params: IdParams,
            body: Type.Object(Changes),
            response: { 200: EventDefinition },
          },
        },
        async (request) =>
          toEventDefinition(
            await changeEventDefinition(deps, projectAccessOf(request), request.params.id, request.body),
          ),
      );
    }
    app.delete(
      `${events}:id/`,
      {
        config: eventWrite,
        schema: {
          tags: ['event_definitions'],
          summary: 'Delete an event definition',
          params: IdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await removeEventDefinition(deps, projectAccessOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    const props = `${prefix}property_definitions/`;
    app.get(
      props,
      {
        config: propRead,
        schema: {
          tags: ['property_definitions'],
          summary: 'Property names and types seen by ingestion (PostHog filters)',
          params: ProjectIdParams,
          querystring: Type.Object({
            ...PageQuery.properties,
            type: Type.Optional(Type.String()),
            group_type_index: Type.Optional(Type.Integer({ minimum: 0, maximum: 4 })),
            search: Type.Optional(Type.String({ maxLength: 400 })),
            event_names: Type.Optional(Type.String({ description: 'JSON list of event names' })),
            filter_by_event_names: Type.Optional(Type.Boolean()),
            is_numerical: Type.Optional(Type.Boolean()),
            property_type: Type.Optional(Type.String()),
            properties: Type.Optional(Type.String({ description: 'Comma-separated names' })),
            excluded_properties: Type.Optional(Type.String({ description: 'JSON list of names' })),
            exclude_core_properties: Type.Optional(Type.Boolean()),
            is_feature_flag: Type.Optional(Type.Boolean()),
            exclude_hidden: Type.Optional(Type.Boolean()),
          }),
          response: { 200: Paginated(PropertyDefinition) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const out = await propertyDefinitions(deps, projectAccessOf(request), request.query, page);
        return paginate(request, page, { count: out.count, results: out.results.map(toPropertyDefinition) });
      },
    );
    app.get(
      `${props}:id/`,
      {
        config: propRead,
        schema: {
          tags: ['property_definitions'],
          summary: 'One property definition',
          params: IdParams,
          response: { 200: PropertyDefinition },
        },
      },
      async (request) =>
        toPropertyDefinition(await propertyDefinition(deps, projectAccessOf(request), request.params.id)),
    );
    for (const method of ['patch', 'put'] as const) {
      app[method](
        `${props}:id/`,
        {
          config: propWrite,
          schema: {
            tags: ['property_definitions'],
            summary: 'Change description, tags, verified, hidden or property_type',
            params: IdParams,
            body: Type.Object({
              ...Changes,
              property_type: Type.Optional(Nullable(Type.String({ enum: PROPERTY_TYPES }))),
            }),
            response: { 200: PropertyDefinition },
          },
        },
        async (request) =>
          toPropertyDefinition(
            await changePropertyDefinition(deps, projectAccessOf(request), request.params.id, request.body),
          ),
      );
    }
    app.delete(
      `${props}:id/`,
      {
        config: propWrite,
        schema: {
          tags: ['property_definitions'],
          summary: 'Delete a property definition',
          params: IdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await removePropertyDefinition(deps, projectAccessOf(request), request.params.id);
        return reply.code(204).send(null);
      },
    );
  }
};
