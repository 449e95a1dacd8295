import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  changeProperties,
  deletePersons,
  getPerson,
  listPersons,
  MAX_BULK_DELETE,
  personPropertyValues,
  personsForBulkDelete,
  queuePersonDataDeletion,
} from '../domain/persons/persons.js';
import { scope } from '../domain/scopes.js';
import { validationError } from '../errors.js';
import { projectAccessOf } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { ProjectIdParams } from './schemas/common.js';
import { Person, PersonIdParams, PersonListQuery, PersonPage, toPerson } from './schemas/persons.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['persons'];
const read = scope('person', 'read');
const write = scope('person', 'write');

/** The page after this one, as PostHog's persons list links it (limit/offset in the query). */
function nextUrl(request: FastifyRequest, limit: number, offset: number): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('offset', String(offset));
  return url.toString();
}

function prevUrl(request: FastifyRequest, limit: number, offset: number): string | null {
  if (offset === 0) return null;
  return nextUrl(request, limit, Math.max(0, offset - limit));
}

const MAX_KEY = 400;

export const personRoutes: ApiPlugin<{
  forgetDistinctIds: (teamId: number, ids: string[]) => Promise<void>;
  /** Tells the background deletion worker that a deletion was queued. */
  wakeDeletions: () => void;
}> = async (app, { deps, forgetDistinctIds, wakeDeletions }) => {
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}persons/`;
    const item = `${base}:id/`;

    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Persons, newest first (filters: search, distinct_id, email, properties, uuid, cohort)',
          params: ProjectIdParams,
          querystring: PersonListQuery,
          response: { 200: PersonPage },
        },
      },
      async (request) => {
        const limit = request.query.limit ?? 100;
        const offset = request.query.offset ?? 0;
        const page = await listPersons(deps, projectAccessOf(request), request.query, { limit, offset });
        return {
          next: page.hasMore ? nextUrl(request, limit, offset + limit) : null,
          previous: prevUrl(request, limit, offset),
          results: page.results.map(toPerson),
        };
      },
    );

    app.get(
      `${base}values/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Values of a person property, most common first, with how many persons have each',
          params: ProjectIdParams,
          querystring: Type.Object({
            key: Type.String({ minLength: 1, maxLength: MAX_KEY }),
            value: Type.Optional(Type.String({ maxLength: MAX_KEY })),
          }),
          response: { 200: Type.Array(Type.Object({ name: Type.Unknown(), count: Type.Integer() })) },
        },
      },
      async (request) =>
        personPropertyValues(deps, projectAccessOf(request), request.query.key, request.query.value),
    );

    app.post(
      `${base}bulk_delete/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: `Delete up to ${MAX_BULK_DELETE} persons by uuid and/or distinct id`,
          params: ProjectIdParams,
          body: Type.Object({
            ids: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: MAX_BULK_DELETE })),
            distinct_ids: Type.Optional(
              Type.Array(Type.String({ maxLength: 400 }), { maxItems: MAX_BULK_DELETE }),
            ),
            delete_events: Type.Optional(Type.Boolean()),
          }),
          response: { 202: Type.Null() },
        },
      },
      async (request, reply) => {
        const access = projectAccessOf(request);
        const persons = await personsForBulkDelete(deps, access, request.body);
        const { distinctIds, deletion } = await deletePersons(deps, access, persons, {
          deleteEvents: request.body.delete_events === true,
        });
        await forgetDistinctIds(access.team.id, distinctIds);
        if (deletion) wakeDeletions();
        return reply.code(202).send(null);
      },
    );

    app.get(
      item,
      {
        config: { scope: read },
        schema: { tags, summary: 'One person by uuid', params: PersonIdParams, response: { 200: Person } },
      },
      async (request) => toPerson(await getPerson(deps, projectAccessOf(request), request.params.id)),
    );

    app.patch(
      item,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Set person properties (merged into the existing ones, as $set)',
          params: PersonIdParams,
          body: Type.Object({ properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
          response: { 200: Person },
        },
      },
      async (request) => {
        const set = request.body.properties ?? {};
        return toPerson(
          await changeProperties(deps, projectAccessOf(request), request.params.id, (p) => ({
            ...p,
            ...set,
          })),
        );
      },
    );

    app.post(
      `${item}update_property/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Set one person property',
          params: PersonIdParams,
          body: Type.Object({
            key: Type.String({ minLength: 1, maxLength: MAX_KEY }),
            value: Type.Unknown(),
          }),
          response: { 202: Type.Null() },
        },
      },
      async (request, reply) => {
        const { key, value } = request.body;
        if (value === undefined) throw validationError('This field is required.', 'value', 'required');
        await changeProperties(deps, projectAccessOf(request), request.params.id, (p) => ({
          ...p,
          [key]: value,
        }));
        return reply.code(202).send(null);
      },
    );

    app.post(
      `${item}delete_property/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Remove one person property (`{"$unset": "key"}`)',
          params: PersonIdParams,
          body: Type.Object({ $unset: Type.String({ minLength: 1, maxLength: MAX_KEY }) }),
          response: { 201: Type.Null() },
        },
      },
      async (request, reply) => {
        const key = request.body.$unset;
        await changeProperties(deps, projectAccessOf(request), request.params.id, (p) => {
          delete p[key];
          return p;
        });
        return reply.code(201).send(null);
      },
    );

    app.delete(
      item,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Delete a person from both stores (`delete_events=true`: with its events)',
          params: PersonIdParams,
          querystring: Type.Object({ delete_events: Type.Optional(Type.Boolean()) }),
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        const access = projectAccessOf(request);
        const person = await getPerson(deps, access, request.params.id);
        const { distinctIds, deletion } = await deletePersons(deps, access, [person], {
          deleteEvents: request.query.delete_events === true,
        });
        await forgetDistinctIds(access.team.id, distinctIds);
        if (deletion) wakeDeletions();
        return reply.code(204).send(null);
      },
    );

    for (const [action, scope] of [
      ['delete_events', 'events'],
      ['delete_recordings', 'recordings'],
    ] as const) {
      app.post(
        `${item}${action}/`,
        {
          config: { scope: write },
          schema: {
            tags,
            summary:
              scope === 'events'
                ? "Queue the deletion of the person's events, sessions and recordings; the person stays"
                : "Queue the deletion of the person's recordings; the person stays",
            params: PersonIdParams,
            response: { 202: Type.Null() },
          },
        },
        async (request, reply) => {
          const access = projectAccessOf(request);
          const person = await getPerson(deps, access, request.params.id);
          await queuePersonDataDeletion(deps, access, person, scope);
          wakeDeletions();
          return reply.code(202).send(null);
        },
      );
    }
  }
};
