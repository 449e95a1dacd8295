import { Type } from 'typebox';
import type { TileView } from '../../domain/saved/dashboard-view.js';
import type { DashboardRecord, TileRecord } from '../../store/meta/dashboards.js';
import type { UserRecord } from '../../store/meta/users.js';
import { DateTime, Nullable, NullableDateTime, toUserBasic, UserBasic } from './common.js';
import { Insight, type RunStatus, toInsight } from './insights.js';

/** A tile as the dashboard schema shows it, its insight's run status typed as that schema's. */
type DashboardTile = TileView<RunStatus>;

export const DashboardListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  search: Type.Optional(Type.String({ maxLength: 400 })),
  pinned: Type.Optional(Type.Boolean()),
});

export const DashboardRetrieveQuery = Type.Object({
  refresh: Type.Optional(
    Type.String({
      maxLength: 40,
      description: "Same modes as /query's `refresh`, for every tile (default: cache only)",
    }),
  ),
  filters_override: Type.Optional(Type.String({ maxLength: 20_000, description: 'JSON dashboard filters' })),
});

const TileBody = Type.Object(
  {
    id: Type.Optional(Nullable(Type.Integer())),
    layouts: Type.Optional(Type.Unknown()),
    color: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
    deleted: Type.Optional(Type.Boolean()),
    text: Type.Optional(Nullable(Type.Object({ body: Type.String({ maxLength: 4000 }) }))),
  },
  { additionalProperties: true },
);

export const DashboardBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    pinned: Type.Optional(Type.Boolean()),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    filters: Type.Optional(
      Nullable(
        Type.Object(
          {},
          { additionalProperties: true, description: 'date_from, date_to, properties for every tile' },
        ),
      ),
    ),
    variables: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
    deleted: Type.Optional(Type.Boolean()),
    tiles: Type.Optional(Type.Array(TileBody, { maxItems: 200 })),
  },
  { additionalProperties: false },
);

const Text = Type.Object({
  id: Type.Integer(),
  body: Nullable(Type.String()),
  created_by: Nullable(UserBasic),
  last_modified_by: Nullable(UserBasic),
  last_modified_at: NullableDateTime,
  team: Type.Integer(),
});

export const Tile = Type.Object({
  id: Type.Integer(),
  layouts: Type.Record(Type.String(), Type.Unknown()),
  color: Nullable(Type.String()),
  insight: Nullable(Insight),
  text: Nullable(Text),
  deleted: Type.Boolean(),
  is_cached: Type.Boolean(),
  last_refresh: NullableDateTime,
  order: Type.Integer(),
  show_description: Nullable(Type.Boolean()),
  transparent_background: Nullable(Type.Boolean()),
});

const DashboardBasicFields = {
  id: Type.Integer(),
  name: Nullable(Type.String()),
  description: Type.String(),
  pinned: Type.Boolean(),
  created_at: DateTime,
  created_by: Nullable(UserBasic),
  last_accessed_at: NullableDateTime,
  is_shared: Type.Boolean(),
  deleted: Type.Boolean(),
  creation_mode: Type.String(),
  tags: Type.Array(Type.String()),
  restriction_level: Type.Integer(),
  effective_restriction_level: Type.Integer(),
  effective_privilege_level: Type.Integer(),
  user_access_level: Type.String(),
  access_control_version: Type.String(),
  last_refresh: NullableDateTime,
  team_id: Type.Integer(),
};

export const DashboardBasic = Type.Object(DashboardBasicFields);

export const Dashboard = Type.Object({
  ...DashboardBasicFields,
  filters: Type.Record(Type.String(), Type.Unknown()),
  variables: Nullable(Type.Record(Type.String(), Type.Unknown())),
  persisted_filters: Nullable(Type.Record(Type.String(), Type.Unknown())),
  persisted_variables: Nullable(Type.Record(Type.String(), Type.Unknown())),
  breakdown_colors: Type.Array(Type.Unknown()),
  data_color_theme_id: Type.Null(),
  tiles: Type.Array(Tile),
});

const user = (users: Map<number, UserRecord>, id: number | null) => {
  const u = id === null ? undefined : users.get(id);
  return u ? toUserBasic(u) : null;
};

export function toDashboardBasic(
  d: DashboardRecord,
  extra: { users: Map<number, UserRecord>; shared: boolean; lastRefresh?: string | null },
) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    pinned: d.pinned,
    created_at: d.createdAt,
    created_by: user(extra.users, d.createdBy),
    last_accessed_at: d.lastAccessedAt,
    is_shared: extra.shared,
    deleted: d.deleted,
    creation_mode: 'default',
    tags: d.tags,
    restriction_level: 21,
    effective_restriction_level: 21,
    effective_privilege_level: 37,
    user_access_level: 'editor',
    access_control_version: 'v2',
    last_refresh: extra.lastRefresh ?? null,
    team_id: d.teamId,
  };
}

export function toTile(
  view: DashboardTile,
  order: number,
  extra: { users: Map<number, UserRecord>; tiles: TileRecord[]; teamId: number },
) {
  const { tile, insight, result } = view;
  return {
    id: tile.id,
    layouts: tile.layouts,
    color: tile.color,
    insight:
      insight && result ? toInsight(insight, { tiles: extra.tiles, users: extra.users, result }) : null,
    text:
      tile.insightId === null
        ? {
            id: tile.id,
            body: tile.textBody,
            created_by: user(extra.users, tile.textCreatedBy),
            last_modified_by: null,
            last_modified_at: tile.textLastModifiedAt,
            team: extra.teamId,
          }
        : null,
    deleted: tile.deleted,
    is_cached: result?.is_cached ?? false,
    last_refresh: result?.last_refresh ?? null,
    order,
    show_description: null,
    transparent_background: null,
  };
}

/** The newest tile refresh is the dashboard's `last_refresh`. */
export const lastRefreshOf = (views: DashboardTile[]) =>
  views.reduce<string | null>((max, v) => {
    const r = v.result?.last_refresh ?? null;
    return r && (!max || r > max) ? r : max;
  }, null);

export function toDashboard(
  d: DashboardRecord,
  views: DashboardTile[],
  extra: { users: Map<number, UserRecord>; shared: boolean; insightTiles: TileRecord[] },
) {
  return {
    ...toDashboardBasic(d, { users: extra.users, shared: extra.shared, lastRefresh: lastRefreshOf(views) }),
    filters: d.filters,
    variables: d.variables,
    persisted_filters: d.filters,
    persisted_variables: d.variables,
    breakdown_colors: [],
    data_color_theme_id: null,
    tiles: views.map((v, i) =>
      toTile(v, i, { users: extra.users, tiles: extra.insightTiles, teamId: d.teamId }),
    ),
  };
}
