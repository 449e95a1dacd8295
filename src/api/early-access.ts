import { Type } from 'typebox';
import {
  changeEarlyAccessFeature,
  createEarlyAccessFeature,
  earlyAccessForSdk,
  featureFlagsOf,
  getEarlyAccessFeature,
  listProjectEarlyAccess,
  removeEarlyAccessFeature,
} from '../domain/early-access/features.js';
import type { FlagCache } from '../domain/flags/cache.js';
import type { FlagDeps } from '../domain/flags/flags.js';
import { PUBLIC, scope } from '../domain/scopes.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery } from '../server/pagination.js';
import type { EarlyAccessFeatureRecord } from '../store/meta/early-access.js';
import type { FeatureFlagRecord } from '../store/meta/feature-flags.js';
import type { TeamRecord } from '../store/meta/teams.js';
import { installCaptureCors } from './capture-cors.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { DateTime, Nullable, ProjectIdParams } from './schemas/common.js';
import { MinimalFlag, toMinimalFlag } from './schemas/surveys.js';

const tags = ['early access features'];

const Feature = Type.Object({
  id: Type.String(),
  feature_flag: Nullable(MinimalFlag),
  name: Type.String(),
  description: Type.String(),
  stage: Type.String(),
  documentation_url: Type.String(),
  payload: Type.Object({}, { additionalProperties: true }),
  created_at: DateTime,
});
const FeatureBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    stage: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'draft, concept, alpha, beta, general-availability, archived',
      }),
    ),
    documentation_url: Type.Optional(Type.String({ maxLength: 800 })),
    payload: Type.Optional(Type.Object({}, { additionalProperties: true, maxProperties: 100 })),
    feature_flag_id: Type.Optional(Nullable(Type.Integer())),
    _create_in_folder: Type.Optional(Type.String({ maxLength: 400, description: 'Accepted and ignored' })),
  },
  { additionalProperties: false },
);
const FeatureIdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 64 }) });

const toFeature = (f: EarlyAccessFeatureRecord, flags: Map<number, FeatureFlagRecord>) => ({
  id: f.id,
  feature_flag: toMinimalFlag(f.featureFlagId === null ? undefined : flags.get(f.featureFlagId)),
  name: f.name,
  description: f.description,
  stage: f.stage,
  documentation_url: f.documentationUrl,
  payload: f.payload,
  created_at: f.createdAt,
});

/** `/api/projects/{id}/early_access_feature/` (PostHog's singular path) and the SDK's public list. */
export const earlyAccessRoutes: ApiPlugin<{
  flags: FlagCache;
  resolveTeam: (token: string | undefined) => Promise<TeamRecord>;
}> = async (app, { deps, flags, resolveTeam }) => {
  const flagDeps: FlagDeps = { ...deps, flags };
  const shape = async (teamId: number, list: EarlyAccessFeatureRecord[]) => {
    const byId = await featureFlagsOf(deps, teamId, list);
    return list.map((f) => toFeature(f, byId));
  };
  const one = async (f: EarlyAccessFeatureRecord) =>
    (await shape(f.teamId, [f]))[0] as ReturnType<typeof toFeature>;

  resourceRoutes(app, {
    path: 'early_access_feature/',
    tags,
    read: scope('early_access_feature', 'read'),
    write: scope('early_access_feature', 'write'),
    item: Feature,
    body: FeatureBody,
    params: FeatureIdParams,
    list: {
      summary: 'Early access features, newest first',
      querystring: Type.Object({ ...PageQuery.properties }),
      handler: async (request, page) => {
        const access = projectAccessOf(request);
        const data = await listProjectEarlyAccess(deps, access, page);
        return { count: data.count, results: await shape(access.team.id, data.results) };
      },
    },
    create: {
      summary: 'Create an early access feature (and its flag, unless `feature_flag_id` names one)',
      handler: async (request) =>
        one(
          await createEarlyAccessFeature(
            flagDeps,
            projectAccessOf(request),
            principalOf(request),
            request.body,
          ),
        ),
    },
    retrieve: {
      summary: 'One early access feature',
      handler: async (request) =>
        one(await getEarlyAccessFeature(deps, projectAccessOf(request), request.params.id)),
    },
    change: {
      summary: 'Change an early access feature; its stage decides whether opting in turns the flag on',
      handler: async (request) =>
        one(
          await changeEarlyAccessFeature(
            flagDeps,
            projectAccessOf(request),
            principalOf(request),
            request.params.id,
            request.body,
          ),
        ),
    },
    remove: {
      summary: 'Delete an early access feature (its flag stays, without the enrolment condition)',
      handler: (request) =>
        removeEarlyAccessFeature(flagDeps, projectAccessOf(request), principalOf(request), request.params.id),
    },
  });

  // The public list is called from customers' sites: capture's CORS, in a scope of its own.
  await app.register(async (sdk) => {
    installCaptureCors(sdk);
    sdk.get(
      '/api/early_access_features/',
      {
        config: { scope: PUBLIC },
        schema: {
          tags,
          summary: 'Early access features for posthog-js, by project token (`stage` narrows)',
          querystring: Type.Object({
            token: Type.Optional(Type.String({ maxLength: 200 })),
            api_key: Type.Optional(Type.String({ maxLength: 200 })),
            stage: Type.Optional(
              Type.Union([
                Type.String({ maxLength: 40 }),
                Type.Array(Type.String({ maxLength: 40 }), { maxItems: 10 }),
              ]),
            ),
          }),
          response: { 200: Type.Object({}, { additionalProperties: true }) },
        },
      },
      async (request) => {
        const q = request.query as { token?: string; api_key?: string; stage?: string | string[] };
        const stages = q.stage === undefined ? [] : [q.stage].flat();
        return earlyAccessForSdk(deps, await resolveTeam(q.token ?? q.api_key), stages);
      },
    );
    sdk.options(
      '/api/early_access_features/',
      { config: { scope: PUBLIC }, schema: { hide: true } },
      async (_r, reply) => reply.code(204).send(),
    );
  });
};
