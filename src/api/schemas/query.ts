import { Type } from 'typebox';
import { Nullable } from './common.js';

const AnyObject = Type.Object({}, { additionalProperties: true });

export const QueryRequestBody = Type.Object(
  {
    query: Type.Object({ kind: Type.String({ maxLength: 100 }) }, { additionalProperties: true }),
    client_query_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    refresh: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Boolean(), Type.Null()])),
    async: Type.Optional(Nullable(Type.Boolean())),
    filters_override: Type.Optional(Nullable(AnyObject)),
    variables_override: Type.Optional(Nullable(AnyObject)),
    name: Type.Optional(Nullable(Type.String({ maxLength: 128 }))),
  },
  { additionalProperties: false },
);

export const QueryStatus = Type.Object(
  {
    id: Type.String(),
    team_id: Type.Integer(),
    query_async: Type.Boolean(),
    complete: Type.Boolean(),
    error: Type.Boolean(),
    error_message: Nullable(Type.String()),
    results: Type.Unknown(),
    start_time: Nullable(Type.String()),
    pickup_time: Nullable(Type.String()),
    end_time: Nullable(Type.String()),
    expiration_time: Nullable(Type.String()),
    task_id: Nullable(Type.String()),
    insight_id: Nullable(Type.Integer()),
    dashboard_id: Nullable(Type.Integer()),
    labels: Nullable(Type.Array(Type.String())),
    query_progress: Type.Unknown(),
  },
  { additionalProperties: true },
);

export const QueryStatusResponse = Type.Object({ query_status: QueryStatus });

/** A result (any kind's fields) with PostHog's cache fields, a cache miss, or a bare status. */
export const QueryResponse = Type.Object(
  {
    results: Type.Optional(Type.Unknown()),
    is_cached: Type.Optional(Type.Boolean()),
    last_refresh: Type.Optional(Nullable(Type.String())),
    next_allowed_client_refresh: Type.Optional(Nullable(Type.String())),
    cache_target_age: Type.Optional(Nullable(Type.String())),
    cache_key: Type.Optional(Nullable(Type.String())),
    timezone: Type.Optional(Type.String()),
    query_status: Type.Optional(Nullable(QueryStatus)),
  },
  { additionalProperties: true },
);

export const QueryIdParams = Type.Object({ project_id: Type.String(), id: Type.String({ maxLength: 200 }) });
export const QueryKindParams = Type.Object({
  project_id: Type.String(),
  kind: Type.String({ pattern: '^[A-Z][A-Za-z]*$', maxLength: 100 }),
});
export const StatusQuerystring = Type.Object({
  show_progress: Type.Optional(Type.Boolean()),
  showProgress: Type.Optional(Type.Boolean()),
});
export const CancelQuerystring = Type.Object({ dequeue_only: Type.Optional(Type.Boolean()) });
