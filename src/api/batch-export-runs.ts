import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requestBackfill } from '../domain/batch-exports/backfills.js';
import type { ExportDeps } from '../domain/batch-exports/deps.js';
import {
  type CursorPage,
  cancelBackfill,
  cancelRun,
  encodeCursor,
  getBackfill,
  getRun,
  listBackfills,
  listRuns,
  retryRun,
} from '../domain/batch-exports/runs.js';
import { getExport } from '../domain/batch-exports/service.js';
import { notFound } from '../errors.js';
import { type Family, read, tags, withId, write } from './batch-export-common.js';
import { Backfill, CursorList, Run, toBackfill, toRun } from './schemas/batch-exports.js';

const ListQuery = Type.Object({
  ordering: Type.Optional(Type.String({ maxLength: 40 })),
  cursor: Type.Optional(Type.String({ maxLength: 500 })),
  after: Type.Optional(Type.String({ format: 'date-time' })),
  before: Type.Optional(Type.String({ format: 'date-time' })),
});
const BackfillBody = Type.Optional(
  Type.Object(
    {
      start_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      end_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    },
    { additionalProperties: false },
  ),
);
const BackfillId = Type.Object({ backfill_id: Type.String() });

/** DRF's cursor links: the request's URL with `cursor` replaced, parameters sorted. */
function links<T>(request: FastifyRequest, page: CursorPage<T>) {
  const link = (position: CursorPage<T>['next']) => {
    if (!position) return null;
    const url = new URL(request.url, `${request.protocol}://${request.host}`);
    url.searchParams.set('cursor', encodeCursor(position));
    url.searchParams.sort();
    return url.toString();
  };
  return { next: link(page.next), previous: link(page.previous) };
}

const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());

export async function batchExportRunRoutes(app: FastifyInstance, deps: ExportDeps, family: Family) {
  const { prefix, params, scopeOf } = family;
  const byId = withId(params);
  const byRun = Type.Object({ ...byId.properties, run_id: Type.String({ maxLength: 200 }) });
  const byBackfill = Type.Object({ ...byId.properties, backfill_id: Type.String({ maxLength: 200 }) });
  const typed = app.withTypeProvider<import('@fastify/type-provider-typebox').TypeBoxTypeProvider>();
  const exportOf = (request: FastifyRequest & { params: { id: string } }) =>
    getExport(deps, scopeOf(request), request.params.id);

  typed.get(
    `${prefix}:id/runs/`,
    {
      config: { scope: read },
      schema: {
        tags,
        summary:
          'Runs, newest first (cursor pages of 100; the last 7 days unless after/before say otherwise)',
        params: byId,
        querystring: ListQuery,
        response: { 200: CursorList(Run) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await listRuns(deps, await exportOf(request), {
        ...q,
        after: iso(q.after),
        before: iso(q.before),
      });
      return { ...links(request, page), results: page.results.map(toRun) };
    },
  );
  typed.get(
    `${prefix}:id/runs/:run_id/`,
    {
      config: { scope: read },
      schema: { tags, summary: 'Retrieve a run', params: byRun, response: { 200: Run } },
    },
    async (request) => toRun(await getRun(deps, await exportOf(request), request.params.run_id)),
  );
  typed.post(
    `${prefix}:id/runs/:run_id/retry/`,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: "Export the run's window again (as a backfill)",
        params: byRun,
        response: { 200: BackfillId },
      },
    },
    async (request) => ({
      backfill_id: (await retryRun(deps, await exportOf(request), request.params.run_id)).workflowId,
    }),
  );
  typed.post(
    `${prefix}:id/runs/:run_id/cancel/`,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Cancel a Starting or Running run',
        params: byRun,
        response: { 200: Type.Object({ cancelled: Type.Boolean() }) },
      },
    },
    async (request) => {
      await cancelRun(deps, await exportOf(request), request.params.run_id);
      return { cancelled: true };
    },
  );

  for (const path of ['backfills/', 'backfill/']) {
    typed.post(
      `${prefix}:id/${path}`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: path === 'backfill/' ? 'Deprecated alias of backfills/' : 'Export a past range of windows',
          params: byId,
          body: BackfillBody,
          response: { 200: BackfillId },
        },
      },
      async (request) => {
        const exp = await getExport(deps, scopeOf(request), request.params.id).catch(() => {
          throw notFound('BatchExport not found.');
        });
        return { backfill_id: (await requestBackfill(deps, exp, request.body ?? {})).workflowId };
      },
    );
  }
  typed.get(
    `${prefix}:id/backfills/`,
    {
      config: { scope: read },
      schema: {
        tags,
        summary: 'Backfills, newest first (cursor pages of 50)',
        params: byId,
        querystring: ListQuery,
        response: { 200: CursorList(Backfill) },
      },
    },
    async (request) => {
      const page = await listBackfills(deps, await exportOf(request), request.query);
      return {
        ...links(request, page),
        results: page.results.map((b) => toBackfill(b, page.counts.get(b.id) ?? {})),
      };
    },
  );
  typed.get(
    `${prefix}:id/backfills/:backfill_id/`,
    {
      config: { scope: read },
      schema: { tags, summary: 'Retrieve a backfill', params: byBackfill, response: { 200: Backfill } },
    },
    async (request) => {
      const { backfill, counts } = await getBackfill(
        deps,
        await exportOf(request),
        request.params.backfill_id,
      );
      return toBackfill(backfill, counts);
    },
  );
  typed.post(
    `${prefix}:id/backfills/:backfill_id/cancel/`,
    {
      config: { scope: write },
      schema: {
        tags,
        summary: 'Cancel a Starting or Running backfill',
        params: byBackfill,
        response: { 200: Type.Object({ cancelled: Type.Boolean() }) },
      },
    },
    async (request) => {
      await cancelBackfill(deps, await exportOf(request), request.params.backfill_id);
      return { cancelled: true };
    },
  );
}
