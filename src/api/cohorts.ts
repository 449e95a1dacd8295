import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  addToStaticCohort,
  changeCohort,
  cohortList,
  createCohort,
  getCohort,
  MAX_STATIC_ADD,
  parseCohortCsv,
} from '../domain/cohorts/cohorts.js';
import { listPersons } from '../domain/persons/persons.js';
import { scope } from '../domain/scopes.js';
import { ApiError } from '../errors.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { CohortRecord } from '../store/meta/cohorts.js';
import type { ApiPlugin } from './context.js';
import { Nullable, ProjectIdParams } from './schemas/common.js';
import { PersonPage, toPerson } from './schemas/persons.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['cohorts'];
const read = { scope: scope('cohort', 'read') };
const write = { scope: scope('cohort', 'write') };
/** Largest CSV upload for a static cohort (bytes); rows are limited separately. */
export const MAX_CSV_BYTES = 1_000_000;

const Cohort = Type.Object({
  id: Type.Integer(),
  name: Nullable(Type.String()),
  description: Type.String(),
  groups: Type.Array(Type.Unknown()),
  filters: Type.Unknown(),
  deleted: Type.Boolean(),
  is_static: Type.Boolean(),
  is_calculating: Type.Boolean(),
  last_calculation: Nullable(Type.String()),
  errors_calculating: Type.Integer(),
  last_error_at: Nullable(Type.String()),
  count: Nullable(Type.Integer()),
  created_at: Type.String(),
  created_by: Nullable(Type.Integer()),
  version: Nullable(Type.Integer()),
});

const toCohort = (c: CohortRecord) => ({
  id: c.id,
  name: c.name,
  description: c.description,
  groups: c.groups,
  filters: c.filters,
  deleted: c.deleted,
  is_static: c.isStatic,
  is_calculating: c.isCalculating,
  last_calculation: c.lastCalculation,
  errors_calculating: c.errorsCalculating,
  last_error_at: c.lastErrorAt,
  count: c.count,
  created_at: c.createdAt,
  created_by: c.createdBy,
  version: c.version,
});

const Body = Type.Object({
  name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  filters: Type.Optional(Type.Unknown()),
  groups: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100 })),
  is_static: Type.Optional(Type.Boolean()),
  deleted: Type.Optional(Type.Boolean()),
});

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String() });

export const cohortRoutes: ApiPlugin<{ recalculate: (teamId: number, id: number) => void }> = async (
  app,
  { deps, recalculate },
) => {
  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}cohorts/`;
    const item = `${base}:id/`;
    app.get(
      base,
      {
        config: read,
        schema: {
          tags,
          summary: 'Cohorts (not deleted), newest first',
          params: ProjectIdParams,
          querystring: Type.Object({
            ...PageQuery.properties,
            search: Type.Optional(Type.String({ maxLength: 400 })),
          }),
          response: { 200: Paginated(Cohort) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const out = await cohortList(deps, projectAccessOf(request), page, request.query.search);
        return paginate(request, page, { count: out.count, results: out.results.map(toCohort) });
      },
    );
    app.post(
      base,
      {
        config: write,
        schema: {
          tags,
          summary: 'Create a cohort (dynamic: calculated in the background)',
          params: ProjectIdParams,
          body: Body,
          response: { 201: Cohort },
        },
      },
      async (request, reply) => {
        const created = await createCohort(
          deps,
          projectAccessOf(request),
          principalOf(request),
          request.body,
          (t, id) => recalculate(t, id),
        );
        return reply.code(201).send(toCohort(created));
      },
    );
    app.get(
      item,
      { config: read, schema: { tags, summary: 'One cohort', params: IdParams, response: { 200: Cohort } } },
      async (request) => toCohort(await getCohort(deps, projectAccessOf(request), request.params.id)),
    );
    for (const method of ['patch', 'put'] as const) {
      app[method](
        item,
        {
          config: write,
          schema: {
            tags,
            summary: 'Change a cohort; `deleted: true` deletes it (soft), `false` restores it',
            params: IdParams,
            body: Body,
            response: { 200: Cohort },
          },
        },
        async (request) =>
          toCohort(
            await changeCohort(deps, projectAccessOf(request), request.params.id, request.body, recalculate),
          ),
      );
    }
    app.delete(
      item,
      {
        config: write,
        schema: {
          tags,
          summary: 'Not allowed: PATCH `deleted: true` instead (as PostHog)',
          params: IdParams,
          response: { 405: Type.Unknown() },
        },
      },
      async () => {
        throw new ApiError(405, 'invalid_request', 'method_not_allowed', 'Method "DELETE" not allowed.');
      },
    );
    app.get(
      `${item}persons/`,
      {
        config: read,
        schema: {
          tags,
          summary: "The cohort's persons",
          params: IdParams,
          querystring: Type.Object({
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
            offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
          }),
          response: { 200: PersonPage },
        },
      },
      async (request) => {
        const access = projectAccessOf(request);
        const cohort = await getCohort(deps, access, request.params.id);
        const limit = request.query.limit ?? 100;
        const offset = request.query.offset ?? 0;
        const page = await listPersons(deps, access, { cohort: cohort.id }, { limit, offset });
        const url = new URL(request.url, `${request.protocol}://${request.host}`);
        url.searchParams.set('limit', String(limit));
        url.searchParams.set('offset', String(offset + limit));
        return {
          next: page.hasMore ? url.toString() : null,
          previous: null,
          results: page.results.map(toPerson),
        };
      },
    );
    app.patch(
      `${item}add_persons_to_static_cohort/`,
      {
        config: write,
        schema: {
          tags,
          summary: `Add up to ${MAX_STATIC_ADD} persons (uuids or distinct ids) to a static cohort`,
          params: IdParams,
          body: Type.Object({
            person_ids: Type.Optional(
              Type.Array(Type.String({ maxLength: 200 }), { maxItems: MAX_STATIC_ADD }),
            ),
            distinct_ids: Type.Optional(
              Type.Array(Type.String({ maxLength: 400 }), { maxItems: MAX_STATIC_ADD }),
            ),
          }),
          response: { 200: Type.Object({ success: Type.Boolean() }) },
        },
      },
      async (request) => {
        await addToStaticCohort(deps, projectAccessOf(request), request.params.id, request.body);
        return { success: true };
      },
    );
  }
  await app.register(csvUpload(deps));
};

/** `POST cohorts/:id/upload_csv/` with a `text/csv` body: one column of distinct ids. */
const csvUpload =
  (deps: Parameters<ApiPlugin>[1]['deps']): FastifyPluginAsync =>
  async (app) => {
    app.addContentTypeParser(
      /^text\/csv(;|$)/,
      { parseAs: 'string', bodyLimit: MAX_CSV_BYTES },
      (_r, body, done) => done(null, String(body)),
    );
    for (const prefix of PROJECT_PREFIXES) {
      app.post(
        `${prefix}cohorts/:id/upload_csv/`,
        {
          config: write,
          schema: {
            tags,
            summary: `Add the distinct ids of a CSV (text/csv, at most ${MAX_CSV_BYTES} bytes and ${MAX_STATIC_ADD} rows) to a static cohort`,
            params: IdParams,
            response: { 200: Cohort },
          },
        },
        async (request) => {
          if (typeof request.body !== 'string')
            throw new ApiError(415, 'invalid_request', 'unsupported_media_type', 'Send the CSV as text/csv.');
          const ids = parseCohortCsv(request.body);
          if (ids.length > MAX_STATIC_ADD)
            throw new ApiError(
              400,
              'validation_error',
              'invalid_input',
              `The CSV has more than ${MAX_STATIC_ADD} rows.`,
              'csv',
            );
          return toCohort(
            await addToStaticCohort(deps, projectAccessOf(request), (request.params as { id: string }).id, {
              distinct_ids: ids,
            }),
          );
        },
      );
    }
  };
