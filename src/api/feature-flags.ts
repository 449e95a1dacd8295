import { Type } from 'typebox';
import { usersById } from '../domain/accounts/users.js';
import type { FlagCache } from '../domain/flags/cache.js';
import { changeFlag, createFlag, type FlagDeps, getFlag, listFlags } from '../domain/flags/flags.js';
import { describeSecretKey, revokeSecretKey, rotateSecretKey } from '../domain/flags/secret-key.js';
import { scope } from '../domain/scopes.js';
import { notFound } from '../errors.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { FeatureFlagRecord } from '../store/meta/feature-flags.js';
import type { UserRecord } from '../store/meta/users.js';
import type { ApiPlugin } from './context.js';
import { DateTime, Nullable, ProjectIdParams, toUserBasic, UserBasic } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['feature flags'];
const read = scope('feature_flag', 'read');
const write = scope('feature_flag', 'write');

const FeatureFlag = Type.Object({
  id: Type.Integer(),
  team_id: Type.Integer(),
  name: Type.String(),
  key: Type.String(),
  filters: Type.Object({}, { additionalProperties: true }),
  deleted: Type.Boolean(),
  active: Type.Boolean(),
  created_by: Nullable(UserBasic),
  last_modified_by: Nullable(UserBasic),
  created_at: DateTime,
  updated_at: DateTime,
  version: Type.Integer(),
  ensure_experience_continuity: Type.Boolean(),
  is_simple_flag: Type.Boolean(),
  rollout_percentage: Nullable(Type.Number()),
  tags: Type.Array(Type.String()),
  evaluation_runtime: Type.String(),
  bucketing_identifier: Type.String(),
  has_encrypted_payloads: Type.Boolean(),
  is_remote_configuration: Type.Boolean(),
  experiment_set: Type.Array(Type.Integer()),
  surveys: Type.Array(Type.Unknown()),
  features: Type.Array(Type.Unknown()),
  can_edit: Type.Boolean(),
  status: Type.String(),
});

const FlagBody = Type.Object(
  {
    key: Type.Optional(Type.String({ maxLength: 400 })),
    name: Type.Optional(Type.String({ maxLength: 10_000 })),
    filters: Type.Optional(
      Type.Unknown({
        description: 'PostHog filters: groups, multivariate, payloads, aggregation_group_type_index',
      }),
    ),
    active: Type.Optional(Type.Boolean()),
    deleted: Type.Optional(Type.Boolean()),
    ensure_experience_continuity: Type.Optional(Type.Boolean()),
    evaluation_runtime: Type.Optional(
      Type.Union([Type.Literal('server'), Type.Literal('client'), Type.Literal('all')]),
    ),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    version: Type.Optional(Type.Integer()),
    original_flag: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ ...ProjectIdParams.properties, id: Type.String({ maxLength: 400 }) });
const ListQuery = Type.Object({
  ...PageQuery.properties,
  search: Type.Optional(Type.String({ maxLength: 400 })),
  active: Type.Optional(Type.String({ enum: ['true', 'false', 'STALE'] })),
});

/** PostHog's "simple flag": one condition set without properties, no variants. */
function simpleRollout(f: FeatureFlagRecord): { simple: boolean; rollout: number | null } {
  const groups =
    (f.filters.groups as Array<{ properties?: unknown[]; rollout_percentage?: number | null }>) ?? [];
  const multivariate = (f.filters.multivariate as { variants?: unknown[] } | null | undefined)?.variants
    ?.length;
  const simple = groups.length === 1 && (groups[0]?.properties ?? []).length === 0 && !multivariate;
  return { simple, rollout: simple ? (groups[0]?.rollout_percentage ?? null) : null };
}

export function toFlag(f: FeatureFlagRecord, users: Map<number, UserRecord>) {
  const user = (id: number | null) => {
    const u = id === null ? undefined : users.get(id);
    return u ? toUserBasic(u) : null;
  };
  const { simple, rollout } = simpleRollout(f);
  return {
    id: f.id,
    team_id: f.teamId,
    name: f.name,
    key: f.key,
    filters: f.filters,
    deleted: f.deleted,
    active: f.active,
    created_by: user(f.createdBy),
    last_modified_by: user(f.lastModifiedBy),
    created_at: f.createdAt,
    updated_at: f.updatedAt,
    version: f.version,
    ensure_experience_continuity: f.ensureExperienceContinuity,
    is_simple_flag: simple,
    rollout_percentage: rollout,
    tags: f.tags,
    evaluation_runtime: f.evaluationRuntime,
    bucketing_identifier: 'distinct_id',
    has_encrypted_payloads: false,
    is_remote_configuration: false,
    experiment_set: [],
    surveys: [],
    features: [],
    can_edit: true,
    status: f.deleted ? 'DELETED' : 'ACTIVE',
  };
}

const idOf = (raw: string) => {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound();
  return Number(raw);
};

/** `/api/projects/{id}/feature_flags/` (and the `/api/environments/` copy), and the secret key. */
export const featureFlagRoutes: ApiPlugin<{ flags: FlagCache }> = async (app, { deps, flags }) => {
  const flagDeps: FlagDeps = { ...deps, flags };
  const shape = async (list: FeatureFlagRecord[]) => {
    const users = await usersById(
      deps,
      list.flatMap((f) => [f.createdBy, f.lastModifiedBy]),
    );
    return list.map((f) => toFlag(f, users));
  };
  const one = async (f: FeatureFlagRecord) => (await shape([f]))[0] as ReturnType<typeof toFlag>;

  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}feature_flags/`;
    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Feature flags (not deleted), newest first',
          params: ProjectIdParams,
          querystring: ListQuery,
          response: { 200: Paginated(FeatureFlag) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const data = await listFlags(deps, projectAccessOf(request), {
          search: request.query.search,
          active: request.query.active as 'true' | 'false' | undefined,
          ...page,
        });
        return paginate(request, page, { count: data.count, results: await shape(data.results) });
      },
    );
    app.post(
      base,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Create a feature flag',
          params: ProjectIdParams,
          body: FlagBody,
          response: { 201: FeatureFlag },
        },
      },
      async (request, reply) =>
        reply
          .code(201)
          .send(
            await one(
              await createFlag(flagDeps, projectAccessOf(request), principalOf(request), request.body),
            ),
          ),
    );
    app.get(
      `${base}:id/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'One feature flag, by id or key',
          params: IdParams,
          response: { 200: FeatureFlag },
        },
      },
      async (request) => one(await getFlag(deps, projectAccessOf(request), request.params.id)),
    );
    for (const method of ['patch', 'put'] as const) {
      app[method](
        `${base}:id/`,
        {
          config: { scope: write },
          schema: {
            tags,
            summary: 'Change a feature flag; `deleted: true` deletes it',
            params: IdParams,
            body: FlagBody,
            response: { 200: FeatureFlag },
          },
        },
        async (request) =>
          one(
            await changeFlag(
              flagDeps,
              projectAccessOf(request),
              principalOf(request),
              idOf(request.params.id),
              request.body,
            ),
          ),
      );
    }
    app.delete(
      `${base}:id/`,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Delete a feature flag (marks it deleted)',
          params: IdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await changeFlag(flagDeps, projectAccessOf(request), principalOf(request), idOf(request.params.id), {
          deleted: true,
        });
        return reply.code(204).send(null);
      },
    );
    app.get(
      `${base}:id/remote_config/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "A remote-config flag's payload (unencrypted payloads only)",
          params: IdParams,
          response: { 200: Type.Unknown() },
        },
      },
      async (request) => {
        const flag = await getFlag(deps, projectAccessOf(request), request.params.id);
        const payloads = (flag.filters.payloads ?? {}) as Record<string, unknown>;
        const value = payloads.true ?? null;
        if (typeof value !== 'string') return value;
        try {
          return JSON.parse(value);
        } catch {
          return value;
        }
      },
    );

    const SecretKey = Type.Object({ mask_value: Nullable(Type.String()), created_at: Nullable(DateTime) });
    app.get(
      `${prefix}secret_api_token/`,
      {
        config: { scope: scope('project', 'read') },
        schema: {
          tags,
          summary: "The project's secret API key (masked)",
          params: ProjectIdParams,
          response: { 200: SecretKey },
        },
      },
      async (request) => describeSecretKey(deps, projectAccessOf(request)),
    );
    app.post(
      `${prefix}rotate_secret_token/`,
      {
        config: { scope: scope('project', 'write') },
        schema: {
          tags,
          summary:
            "Create or rotate the project's secret API key, phs_… (admin); the value is shown only in this answer",
          params: ProjectIdParams,
          response: {
            200: Type.Object({
              secret_api_token: Type.String(),
              mask_value: Type.String(),
              created_at: DateTime,
            }),
          },
        },
      },
      async (request) => rotateSecretKey(deps, projectAccessOf(request), principalOf(request)),
    );
    app.delete(
      `${prefix}secret_api_token/`,
      {
        config: { scope: scope('project', 'write') },
        schema: {
          tags,
          summary: "Revoke the project's secret API key (admin)",
          params: ProjectIdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await revokeSecretKey(deps, projectAccessOf(request));
        return reply.code(204).send(null);
      },
    );
  }
};
