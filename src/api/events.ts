import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { eventPropertyValues, getEvent, listEvents, MAX_EVENTS } from '../domain/events/events.js';
import { scope } from '../domain/scopes.js';
import { projectAccessOf } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { Nullable, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['events'];
const read = scope('query', 'read');

const Event = Type.Object({
  id: Type.String(),
  distinct_id: Type.String(),
  properties: Type.Record(Type.String(), Type.Unknown()),
  event: Type.String(),
  timestamp: Type.String(),
  person: Type.Null(),
  elements: Type.Array(Type.Unknown()),
  elements_chain: Type.String(),
});

/** The next page: the same query with `before` at the last event's timestamp. */
function nextUrl(request: FastifyRequest, before: string): string {
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  url.searchParams.set('before', before);
  return url.toString();
}

export const eventRoutes: ApiPlugin = async (app, { deps }) => {
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}events/`;
    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Events, newest first; `next` continues before the last one',
          params: ProjectIdParams,
          querystring: Type.Object({
            event: Type.Optional(Type.String()),
            person_id: Type.Optional(Type.String()),
            distinct_id: Type.Optional(Type.String()),
            properties: Type.Optional(Type.String({ description: 'JSON list of property filters' })),
            before: Type.Optional(Type.String({ description: 'ISO 8601 timestamp' })),
            after: Type.Optional(Type.String({ description: 'ISO 8601 timestamp' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EVENTS })),
          }),
          response: { 200: Type.Object({ next: Nullable(Type.String()), results: Type.Array(Event) }) },
        },
      },
      async (request) => {
        const page = await listEvents(deps, projectAccessOf(request), request.query);
        const last = page.results[page.results.length - 1];
        return {
          next: page.hasMore && last ? nextUrl(request, last.timestamp) : null,
          results: page.results,
        };
      },
    );

    app.get(
      `${base}values/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Recent values of an event property (last 7 days), most frequent first',
          params: ProjectIdParams,
          querystring: Type.Object({
            key: Type.String({ minLength: 1, maxLength: 400 }),
            value: Type.Optional(Type.String({ maxLength: 400 })),
            event_name: Type.Optional(
              Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 100 })]),
            ),
          }),
          response: { 200: Type.Array(Type.Object({ name: Type.Unknown() })) },
        },
      },
      async (request) => {
        const names = request.query.event_name;
        return eventPropertyValues(deps, projectAccessOf(request), {
          key: request.query.key,
          value: request.query.value,
          event_name: names === undefined ? undefined : Array.isArray(names) ? names : [names],
        });
      },
    );

    app.get(
      `${base}:id/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'One event by uuid',
          params: Type.Object({ ...ProjectIdParams.properties, id: Type.String() }),
          response: { 200: Event },
        },
      },
      async (request) => getEvent(deps, projectAccessOf(request), request.params.id),
    );
  }
};
