import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { throttled } from '../domain/accounts/login-sessions.js';
import { dashboardTiles } from '../domain/saved/dashboard-view.js';
import { insightResult } from '../domain/saved/results.js';
import { changeSharing, getSharing, refreshSharing, resolveShared } from '../domain/saved/sharing.js';
import { PUBLIC, scope } from '../domain/scopes.js';
import type { QueryRuntime } from '../execution/runtime.js';
import { projectAccessOf } from '../server/auth.js';
import type { SharingRecord, SharingTarget } from '../store/meta/sharing.js';
import type { Counters } from '../store/shared/counters.js';
import type { ApiPlugin } from './context.js';
import { idOf } from './saved-common.js';
import { DateTime, ErrorBody, Nullable } from './schemas/common.js';
import { Dashboard, toDashboard } from './schemas/dashboards.js';
import { Insight, ItemIdParams, toInsight } from './schemas/insights.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['sharing'];
const read = scope('sharing_configuration', 'read');
const write = scope('sharing_configuration', 'write');

/** Public reads per client address and per link, per minute (shared through Redis when configured). */
export const SHARED_LIMITS = { perIp: 120, perToken: 600, windowMs: 60_000 };

const SharingConfiguration = Type.Object({
  created_at: DateTime,
  enabled: Type.Boolean(),
  access_token: Type.String(),
  settings: Nullable(Type.Record(Type.String(), Type.Unknown())),
  password_required: Type.Boolean(),
  share_passwords: Type.Array(Type.Unknown()),
});

const SharingBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    settings: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    password_required: Type.Optional(
      Type.Boolean({ description: 'Only false is accepted: Burrow has no share passwords (400 for true)' }),
    ),
  },
  { additionalProperties: false },
);

const Shared = Type.Object({
  type: Type.String({ enum: ['insight', 'dashboard'] }),
  insight: Type.Optional(Insight),
  dashboard: Type.Optional(Dashboard),
});

const toConfig = (s: SharingRecord) => ({
  created_at: s.createdAt,
  enabled: s.enabled,
  access_token: s.accessToken,
  settings: s.settings,
  password_required: false,
  share_passwords: [],
});

export const sharingRoutes: ApiPlugin<{ query: QueryRuntime; counters: Counters }> = async (
  app,
  { deps, query, counters },
) => {
  const targets = [
    { path: 'insights', target: (id: number): SharingTarget => ({ insightId: id }) },
    { path: 'dashboards', target: (id: number): SharingTarget => ({ dashboardId: id }) },
  ];
  for (const prefix of PROJECT_PREFIXES) {
    for (const { path, target } of targets) {
      const base = `${prefix}${path}/:id/sharing/`;
      app.get(
        base,
        {
          config: { scope: read },
          schema: {
            tags,
            summary: `The sharing link of one of ${path} (created disabled on first read)`,
            params: ItemIdParams,
            response: { 200: SharingConfiguration },
          },
        },
        async (request) =>
          toConfig(await getSharing(deps, projectAccessOf(request), target(idOf(request.params.id)))),
      );
      for (const method of ['patch', 'put'] as const) {
        app[method](
          base,
          {
            config: { scope: write },
            schema: {
              tags,
              summary: 'Enable or disable the public link',
              params: ItemIdParams,
              body: SharingBody,
              response: { 200: SharingConfiguration },
            },
          },
          async (request) =>
            toConfig(
              await changeSharing(
                deps,
                projectAccessOf(request),
                target(idOf(request.params.id)),
                request.body,
              ),
            ),
        );
      }
      app.post(
        `${base}refresh/`,
        {
          config: { scope: write },
          schema: {
            tags,
            summary: 'A new access token; the old link stops working',
            params: ItemIdParams,
            response: { 200: SharingConfiguration },
          },
        },
        async (request) =>
          toConfig(await refreshSharing(deps, projectAccessOf(request), target(idOf(request.params.id)))),
      );
    }
  }

  const limit = async (request: FastifyRequest, token: string) => {
    const [ip, link] = await Promise.all([
      counters.hit(`shared:ip:${request.ip}`, SHARED_LIMITS.windowMs),
      counters.hit(`shared:token:${token.slice(0, 64)}`, SHARED_LIMITS.windowMs),
    ]);
    if (ip.count > SHARED_LIMITS.perIp) throw throttled(ip.resetInMs);
    if (link.count > SHARED_LIMITS.perToken) throw throttled(link.resetInMs);
  };

  /** The shared object only: no filters, refresh or ids from the caller are taken. */
  const sharedView = async (raw: string) => {
    const token = raw.endsWith('.json') ? raw.slice(0, -5) : raw;
    const shared = await resolveShared(deps, token);
    const users = new Map();
    if (shared.kind === 'insight') {
      const result = await insightResult(deps, query.service, {
        team: shared.team,
        query: shared.insight.query,
        mode: 'blocking',
        insightId: shared.insight.id,
        quiet: true,
      });
      // Which dashboards show it is not part of what was shared.
      return { type: 'insight', insight: toInsight(shared.insight, { tiles: [], users, result }) };
    }
    const views = await dashboardTiles(deps, query.service, shared.team, shared.dashboard, {
      mode: 'blocking',
    });
    return {
      type: 'dashboard',
      dashboard: toDashboard(shared.dashboard, views, { users, shared: true, insightTiles: [] }),
    };
  };

  for (const path of ['/shared/:token', '/embedded/:token']) {
    app.get(
      path,
      {
        config: { scope: PUBLIC },
        schema: {
          tags,
          summary:
            'A shared insight or dashboard with its results, by access token (`.json` suffix accepted)',
          params: Type.Object({ token: Type.String({ maxLength: 100 }) }),
          response: { 200: Shared, 404: ErrorBody, 429: ErrorBody },
        },
        preValidation: async (request) => limit(request, (request.params as { token?: string }).token ?? ''),
      },
      async (request) => sharedView(request.params.token),
    );
  }
};
