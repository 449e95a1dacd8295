import { Type } from 'typebox';
import { syncHoldoutFlags } from '../domain/experiments/experiments.js';
import {
  changeExtra,
  createExtra,
  type ExtrasDeps,
  getExtra,
  listExtraRecords,
  removeExtra,
} from '../domain/experiments/extras.js';
import type { FlagCache } from '../domain/flags/cache.js';
import { scope } from '../domain/scopes.js';
import { notFound } from '../errors.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery } from '../server/pagination.js';
import type { ExtraRecord, ExtrasKind } from '../store/meta/experiment-extras.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { DateTime, ProjectIdParams } from './schemas/common.js';

const tags = ['experiments'];
const read = scope('experiment', 'read');
const write = scope('experiment', 'write');
const Json = Type.Unknown();

const common = {
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  created_by: Json,
  created_at: DateTime,
  updated_at: DateTime,
};
const Holdout = Type.Object({ ...common, filters: Type.Array(Json) });
const SavedMetric = Type.Object({ ...common, query: Json, metadata: Json, tags: Type.Array(Type.String()) });

const Body = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 400 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 3000 }), Type.Null()])),
    filters: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 20 })),
    query: Type.Optional(Type.Unknown()),
    metadata: Type.Optional(Type.Unknown()),
  },
  // Clients send read-only fields back; they are ignored.
  { additionalProperties: true, maxProperties: 30 },
);

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 12 }) });

const idOf = (raw: string) => {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound();
  return Number(raw);
};

const base = (r: ExtraRecord) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  created_by: r.createdBy === null ? null : { id: r.createdBy },
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
const holdoutShape = (r: ExtraRecord) => ({ ...base(r), filters: (r.body.filters as unknown[]) ?? [] });
const savedShape = (r: ExtraRecord) => ({
  ...base(r),
  query: r.body.query ?? null,
  metadata: r.body.metadata ?? {},
  tags: [] as string[],
});

/**
 * Experiment holdouts (`experiment_holdouts/`) and saved metrics (`experiment_saved_metrics/`),
 * PostHog's two side resources of experiments (docs/experiments.md).
 */
export const experimentExtrasRoutes: ApiPlugin<{ flags: FlagCache }> = async (app, { deps, flags }) => {
  const d: ExtrasDeps = { meta: deps.meta, now: () => deps.now() };
  const routes = (
    kind: ExtrasKind,
    what: string,
    item: typeof Holdout | typeof SavedMetric,
    shape: typeof holdoutShape,
  ) =>
    resourceRoutes(app, {
      path: `${kind}/`,
      tags,
      read,
      write,
      item,
      body: Body,
      params: IdParams,
      list: {
        summary: `The project's experiment ${what}s, newest first`,
        querystring: Type.Object({ ...PageQuery.properties }),
        handler: async (request, page) => {
          const data = await listExtraRecords(d, kind, projectAccessOf(request), page);
          return { count: data.count, results: data.results.map(shape) };
        },
      },
      create: {
        summary: `Create an experiment ${what}`,
        handler: async (request) =>
          shape(await createExtra(d, kind, projectAccessOf(request), principalOf(request), request.body)),
      },
      retrieve: {
        summary: `One experiment ${what}`,
        handler: async (request) =>
          shape(await getExtra(d, kind, projectAccessOf(request), idOf(request.params.id))),
      },
      change: {
        summary: `Change an experiment ${what}`,
        handler: async (request) => {
          const access = projectAccessOf(request);
          const changed = await changeExtra(d, kind, access, idOf(request.params.id), request.body);
          // A holdout's new share reaches the flags of the experiments using it, as in PostHog.
          if (kind === 'experiment_holdouts' && request.body.filters !== undefined)
            await syncHoldoutFlags({ ...deps, flags }, access, principalOf(request), changed.id);
          return shape(changed);
        },
      },
      remove: {
        summary: `Delete an experiment ${what}`,
        handler: (request) => removeExtra(d, kind, projectAccessOf(request), idOf(request.params.id)),
      },
    });
  routes('experiment_holdouts', 'holdout', Holdout, holdoutShape);
  routes(
    'experiment_saved_metrics',
    'saved metric',
    SavedMetric,
    savedShape as unknown as typeof holdoutShape,
  );
};
