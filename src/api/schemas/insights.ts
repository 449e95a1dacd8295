import { type Static, Type } from 'typebox';
import type { InsightResultFields } from '../../domain/saved/results.js';
import type { TileRecord } from '../../store/meta/dashboards.js';
import type { InsightRecord } from '../../store/meta/insights.js';
import type { UserRecord } from '../../store/meta/users.js';
import { DateTime, Nullable, NullableDateTime, ProjectIdParams, toUserBasic, UserBasic } from './common.js';
import { QueryStatus } from './query.js';

export const ItemIdParams = Type.Object({
  ...ProjectIdParams.properties,
  id: Type.String({ maxLength: 20 }),
});

const Bool = Type.Union([Type.Boolean(), Type.String({ maxLength: 5 })]);

export const InsightListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  short_id: Type.Optional(Type.String({ maxLength: 20 })),
  search: Type.Optional(Type.String({ maxLength: 400 })),
  saved: Type.Optional(Type.Boolean()),
  favorited: Type.Optional(Type.Boolean()),
  created_by: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  dashboards: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  basic: Type.Optional(Bool),
  refresh: Type.Optional(Type.String({ maxLength: 40 })),
});

export const InsightRetrieveQuery = Type.Object({
  refresh: Type.Optional(Type.String({ maxLength: 40, description: "Same modes as /query's `refresh`" })),
  from_dashboard: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  filters_override: Type.Optional(Type.String({ maxLength: 20_000, description: 'JSON dashboard filters' })),
  variables_override: Type.Optional(Type.String({ maxLength: 20_000 })),
});

export const InsightBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
    derived_name: Type.Optional(Nullable(Type.String({ maxLength: 400 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    query: Type.Optional(
      Type.Unknown({
        description:
          'Any query kind Burrow runs; bare nodes are wrapped (InsightVizNode, DataTableNode, DataVisualizationNode)',
      }),
    ),
    filters: Type.Optional(Type.Unknown({ description: 'Legacy filters: only `{}` is accepted' })),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    favorited: Type.Optional(Type.Boolean()),
    saved: Type.Optional(Type.Boolean()),
    deleted: Type.Optional(Type.Boolean()),
    dashboards: Type.Optional(
      Type.Array(Type.Integer(), { maxItems: 100, description: 'Ids of the dashboards showing the insight' }),
    ),
  },
  { additionalProperties: false },
);

const DashboardTileRef = Type.Object({
  id: Type.Integer(),
  dashboard_id: Type.Integer(),
  deleted: Type.Boolean(),
});

export const Insight = Type.Object({
  id: Type.Integer(),
  short_id: Type.String(),
  name: Nullable(Type.String()),
  derived_name: Nullable(Type.String()),
  query: Type.Unknown(),
  order: Type.Null(),
  deleted: Type.Boolean(),
  dashboards: Type.Array(Type.Integer()),
  dashboard_tiles: Type.Array(DashboardTileRef),
  last_refresh: NullableDateTime,
  cache_target_age: NullableDateTime,
  next_allowed_client_refresh: NullableDateTime,
  result: Type.Unknown(),
  hasMore: Nullable(Type.Boolean()),
  columns: Type.Unknown(),
  types: Type.Unknown(),
  hogql: Nullable(Type.String()),
  resolved_date_range: Type.Unknown(),
  created_at: DateTime,
  created_by: Nullable(UserBasic),
  description: Type.String(),
  updated_at: DateTime,
  tags: Type.Array(Type.String()),
  favorited: Type.Boolean(),
  saved: Type.Boolean(),
  last_modified_at: DateTime,
  last_modified_by: Nullable(UserBasic),
  is_sample: Type.Boolean(),
  effective_restriction_level: Type.Integer(),
  effective_privilege_level: Type.Integer(),
  user_access_level: Type.String(),
  timezone: Type.String(),
  is_cached: Type.Boolean(),
  query_status: Nullable(QueryStatus),
  filters: Type.Record(Type.String(), Type.Unknown()),
  filters_hash: Nullable(Type.String()),
  alerts: Type.Array(Type.Unknown()),
  last_viewed_at: NullableDateTime,
});

// PostHog's access levels for an editor of an unrestricted object (Burrow has no object ACLs).
const EVERYONE_EDITS = 21;
const CAN_EDIT = 37;

/** The status of a query run, as the query machinery reports it and these schemas show it. */
export type RunStatus = Static<typeof QueryStatus>;
export type InsightResults = InsightResultFields<RunStatus>;

export function toInsight(
  i: InsightRecord,
  extra: {
    tiles: TileRecord[];
    users: Map<number, UserRecord>;
    result: InsightResults;
  },
) {
  const user = (id: number | null) => {
    const u = id === null ? undefined : extra.users.get(id);
    return u ? toUserBasic(u) : null;
  };
  const tiles = extra.tiles.filter((t) => t.insightId === i.id);
  const r = extra.result;
  return {
    id: i.id,
    short_id: i.shortId,
    name: i.name,
    derived_name: i.derivedName,
    query: i.query,
    order: null,
    deleted: i.deleted,
    dashboards: tiles.map((t) => t.dashboardId),
    dashboard_tiles: tiles.map((t) => ({ id: t.id, dashboard_id: t.dashboardId, deleted: t.deleted })),
    last_refresh: r.last_refresh,
    cache_target_age: r.cache_target_age,
    next_allowed_client_refresh: r.next_allowed_client_refresh,
    result: r.result,
    hasMore: r.hasMore,
    columns: r.columns,
    types: r.types,
    hogql: r.hogql,
    resolved_date_range: r.resolved_date_range,
    created_at: i.createdAt,
    created_by: user(i.createdBy),
    description: i.description,
    updated_at: i.updatedAt,
    tags: i.tags,
    favorited: i.favorited,
    saved: i.saved,
    last_modified_at: i.lastModifiedAt,
    last_modified_by: user(i.lastModifiedBy),
    is_sample: false,
    effective_restriction_level: EVERYONE_EDITS,
    effective_privilege_level: CAN_EDIT,
    user_access_level: 'editor',
    timezone: r.timezone,
    is_cached: r.is_cached,
    query_status: r.query_status,
    filters: {},
    filters_hash: null,
    alerts: [],
    last_viewed_at: null,
  };
}
