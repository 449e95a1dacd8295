import { Type } from 'typebox';
import {
  changeExperiment,
  createExperiment,
  deleteExperiment,
  type ExperimentView,
  getExperiment,
  listExperimentViews,
} from '../domain/experiments/experiments.js';
import { linkedExtra } from '../domain/experiments/extras.js';
import type { FlagCache } from '../domain/flags/cache.js';
import type { FlagDeps } from '../domain/flags/flags.js';
import { scope } from '../domain/scopes.js';
import { notFound } from '../errors.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import type { MetaDb } from '../store/meta/db.js';
import type { ExtraRecord } from '../store/meta/experiment-extras.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { DateTime, ProjectIdParams } from './schemas/common.js';

const tags = ['experiments'];
const read = scope('experiment', 'read');
const write = scope('experiment', 'write');

const Json = Type.Unknown();
const JsonObject = Type.Record(Type.String(), Type.Unknown());
const NullableDate = Type.Union([DateTime, Type.Null()]);

const Experiment = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  start_date: NullableDate,
  end_date: NullableDate,
  feature_flag_key: Type.String(),
  feature_flag: JsonObject,
  holdout: Json,
  holdout_id: Type.Union([Type.Integer(), Type.Null()]),
  exposure_cohort: Type.Null(),
  parameters: JsonObject,
  secondary_metrics: Type.Array(Json),
  saved_metrics: Type.Array(Json),
  saved_metrics_ids: Type.Array(Json),
  filters: JsonObject,
  archived: Type.Boolean(),
  deleted: Type.Boolean(),
  created_by: Json,
  created_at: DateTime,
  updated_at: DateTime,
  type: Type.String(),
  exposure_criteria: Json,
  metrics: Type.Array(Json),
  metrics_secondary: Type.Array(Json),
  stats_config: Json,
  conclusion: Type.Union([Type.String(), Type.Null()]),
  conclusion_comment: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
});

const JsonList = Type.Array(Type.Unknown(), { maxItems: 50 });
const ExperimentBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 400 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 3000 }), Type.Null()])),
    feature_flag_key: Type.Optional(Type.String({ maxLength: 400 })),
    parameters: Type.Optional(Type.Union([JsonObject, Type.Null()])),
    metrics: Type.Optional(JsonList),
    metrics_secondary: Type.Optional(JsonList),
    saved_metrics_ids: Type.Optional(JsonList),
    exposure_criteria: Type.Optional(Type.Union([JsonObject, Type.Null()])),
    holdout_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    type: Type.Optional(Type.Union([Type.Literal('web'), Type.Literal('product')])),
    conclusion: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    conclusion_comment: Type.Optional(Type.Union([Type.String({ maxLength: 3000 }), Type.Null()])),
    stats_config: Type.Optional(Type.Union([JsonObject, Type.Null()])),
    filters: Type.Optional(JsonObject),
    start_date: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    end_date: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    archived: Type.Optional(Type.Boolean()),
    deleted: Type.Optional(Type.Boolean()),
  },
  // PostHog's clients send read-only fields back (e.g. the MCP tools); they are ignored.
  { additionalProperties: true, maxProperties: 60 },
);

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 12 }) });
const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  archived: Type.Optional(Type.Boolean()),
});

const idOf = (raw: string) => {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound();
  return Number(raw);
};

/** PostHog's status: draft until launched, running until stopped, then stopped. */
const statusOf = (e: ExperimentView) => (!e.startDate ? 'draft' : e.endDate ? 'stopped' : 'running');

const shape = (e: ExperimentView) => ({
  id: e.id,
  name: e.name,
  description: e.description,
  start_date: e.startDate,
  end_date: e.endDate,
  feature_flag_key: e.flag.key,
  feature_flag: {
    id: e.flag.id,
    team_id: e.flag.teamId,
    key: e.flag.key,
    name: e.flag.name,
    filters: e.flag.filters,
    active: e.flag.active,
    deleted: e.flag.deleted,
    ensure_experience_continuity: e.flag.ensureExperienceContinuity,
  },
  holdout: null as unknown,
  holdout_id: e.config.holdout_id,
  exposure_cohort: null,
  parameters: e.config.parameters,
  secondary_metrics: [],
  saved_metrics: [] as unknown[],
  saved_metrics_ids: e.config.saved_metrics_ids,
  filters: e.config.filters,
  archived: e.archived,
  deleted: e.deleted,
  created_by: e.createdBy === null ? null : { id: e.createdBy },
  created_at: e.createdAt,
  updated_at: e.updatedAt,
  type: e.config.type,
  exposure_criteria: e.config.exposure_criteria,
  metrics: e.config.metrics,
  metrics_secondary: e.config.metrics_secondary,
  stats_config: e.config.stats_config,
  conclusion: e.config.conclusion,
  conclusion_comment: e.config.conclusion_comment,
  status: statusOf(e),
});

/** `holdout` and `saved_metrics` filled from the stored holdout and saved metrics the ids name. */
async function withLinks(meta: MetaDb, e: ExperimentView) {
  const out = shape(e);
  const created = (r: ExtraRecord) => ({ created_at: r.createdAt, updated_at: r.updatedAt });
  if (typeof e.config.holdout_id === 'number') {
    const h = await linkedExtra(meta, 'experiment_holdouts', e.teamId, e.config.holdout_id);
    if (h)
      out.holdout = {
        id: h.id,
        name: h.name,
        description: h.description,
        filters: h.body.filters,
        ...created(h),
      };
  }
  const links: unknown[] = [];
  for (const raw of e.config.saved_metrics_ids.slice(0, 50)) {
    const link = (typeof raw === 'object' && raw !== null ? raw : { id: raw }) as {
      id?: unknown;
      metadata?: unknown;
    };
    if (typeof link.id !== 'number') continue;
    const m = await linkedExtra(meta, 'experiment_saved_metrics', e.teamId, link.id);
    if (m)
      links.push({
        id: m.id,
        saved_metric: m.id,
        experiment: e.id,
        metadata: link.metadata ?? m.body.metadata ?? {},
        name: m.name,
        query: m.body.query,
        ...created(m),
      });
  }
  out.saved_metrics = links as never[];
  return out;
}

/**
 * Experiments (docs/experiments.md): PostHog's `experiments` API. Launch, stop and reset are
 * PATCHes of `start_date` / `end_date`, as PostHog's frontend sends them.
 */
export const experimentRoutes: ApiPlugin<{ flags: FlagCache }> = async (app, { deps, flags }) => {
  const flagDeps: FlagDeps = { ...deps, flags };
  resourceRoutes(app, {
    path: 'experiments/',
    tags,
    read,
    write,
    item: Experiment,
    body: ExperimentBody,
    params: IdParams,
    list: {
      summary: "The project's experiments, newest first",
      querystring: ListQuery,
      handler: async (request, page) => {
        const data = await listExperimentViews(flagDeps, projectAccessOf(request), {
          ...page,
          archived: request.query.archived,
        });
        return {
          count: data.count,
          results: await Promise.all(data.results.map((e) => withLinks(deps.meta, e))),
        };
      },
    },
    create: {
      summary: 'Create an experiment, creating or linking its multivariate feature flag',
      handler: async (request) =>
        withLinks(
          deps.meta,
          await createExperiment(flagDeps, projectAccessOf(request), principalOf(request), request.body),
        ),
    },
    retrieve: {
      summary: 'One experiment',
      handler: async (request) =>
        withLinks(
          deps.meta,
          await getExperiment(flagDeps, projectAccessOf(request), idOf(request.params.id)),
        ),
    },
    change: {
      summary: 'Change an experiment; `start_date` launches, `end_date` stops, both null resets',
      handler: async (request) =>
        withLinks(
          deps.meta,
          await changeExperiment(
            flagDeps,
            projectAccessOf(request),
            principalOf(request),
            idOf(request.params.id),
            request.body,
          ),
        ),
    },
    remove: {
      summary: 'Delete the experiment (its flag stays)',
      handler: (request) => deleteExperiment(flagDeps, projectAccessOf(request), idOf(request.params.id)),
    },
  });
};
