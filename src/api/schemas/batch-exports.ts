import { Type } from 'typebox';
import { offsetView } from '../../domain/batch-exports/offsets.js';
import type { ExportView } from '../../domain/batch-exports/service.js';
import type { BackfillRecord } from '../../store/meta/batch-export-backfills.js';
import type { RunRecord } from '../../store/meta/batch-export-runs.js';
import { DateTime, Nullable, NullableDateTime, Uuid } from './common.js';

const Config = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Destination settings; secret fields (passwords, keys, tokens) are never returned',
});

export const Run = Type.Object({
  id: Uuid,
  status: Type.String(),
  records_completed: Type.Integer(),
  records_total_count: Nullable(Type.Integer()),
  bytes_exported: Type.Integer(),
  latest_error: Nullable(Type.String()),
  data_interval_start: NullableDateTime,
  data_interval_end: DateTime,
  cursor: Nullable(Type.String()),
  created_at: DateTime,
  finished_at: NullableDateTime,
  last_updated_at: DateTime,
  batch_export: Uuid,
  backfill: Nullable(Uuid),
});

export const BatchExport = Type.Object({
  id: Uuid,
  team_id: Type.Integer(),
  name: Type.String(),
  model: Type.String(),
  destination: Type.Object({ type: Type.String(), config: Config, integration: Nullable(Type.Integer()) }),
  interval: Type.String(),
  timezone: Type.String(),
  paused: Type.Boolean(),
  paused_reason: Nullable(Type.String(), {
    description: 'Why Burrow paused it (repeated failures), else null',
  }),
  created_at: DateTime,
  last_updated_at: DateTime,
  last_paused_at: NullableDateTime,
  start_at: NullableDateTime,
  end_at: NullableDateTime,
  latest_runs: Type.Array(Run),
  hogql_query: Nullable(Type.String()),
  schema: Nullable(Type.Record(Type.String(), Type.Unknown())),
  filters: Nullable(Type.Array(Type.Unknown())),
  offset_day: Nullable(
    Type.Integer({ description: 'Weekly exports: the weekday windows start on (0 = Sunday)' }),
  ),
  offset_hour: Nullable(Type.Integer({ description: 'Daily and weekly exports: the hour windows start at' })),
});

const NullableText = Type.Optional(Nullable(Type.String()));

const ExportFields = {
  name: Type.String(),
  model: NullableText,
  destination: Type.Object({
    type: Type.Optional(Type.String()),
    config: Type.Optional(Config),
    integration_id: Type.Optional(Nullable(Type.Integer())),
  }),
  interval: Type.String(),
  timezone: NullableText,
  paused: Type.Optional(Type.Boolean()),
  start_at: NullableText,
  end_at: NullableText,
  last_paused_at: NullableText,
  hogql_query: NullableText,
  dialect_query: Type.Optional(Nullable(Type.String(), { description: 'Another name for hogql_query' })),
  filters: Type.Optional(Type.Unknown({ description: 'Property filters: [{key, operator, type, value}]' })),
  offset_day: Type.Optional(Nullable(Type.Integer({ description: '0 (Sunday) to 6; weekly exports only' }))),
  offset_hour: Type.Optional(
    Nullable(Type.Integer({ description: '0 to 23; daily and weekly exports only' })),
  ),
};

export const CreateBody = Type.Object(ExportFields, { additionalProperties: false });
export const UpdateBody = Type.Partial(Type.Object(ExportFields), { additionalProperties: false });
export const TestStepBody = Type.Object(
  { ...ExportFields, step: Type.Optional(Type.Integer({ minimum: 0, default: 0 })) },
  { additionalProperties: false },
);
export const PartialTestStepBody = Type.Partial(TestStepBody, { additionalProperties: false });

export const StepResult = Type.Object({
  name: Type.String(),
  description: Type.String(),
  result: Nullable(Type.Object({ status: Type.String(), message: Nullable(Type.String()) })),
});

export const Backfill = Type.Object({
  id: Uuid,
  team_id: Type.Integer(),
  batch_export: Uuid,
  start_at: NullableDateTime,
  end_at: NullableDateTime,
  status: Type.String(),
  created_at: DateTime,
  finished_at: NullableDateTime,
  last_updated_at: DateTime,
  progress: Nullable(
    Type.Object({ total_runs: Type.Integer(), finished_runs: Type.Integer(), progress: Type.Number() }),
  ),
});

export const CursorList = <T extends ReturnType<typeof Type.Object>>(item: T) =>
  Type.Object({
    next: Nullable(Type.String()),
    previous: Nullable(Type.String()),
    results: Type.Array(item),
  });

export function toRun(r: RunRecord) {
  return {
    id: r.id,
    status: r.status,
    records_completed: r.recordsCompleted,
    records_total_count: r.recordsTotalCount,
    bytes_exported: r.bytesExported,
    latest_error: r.latestError,
    data_interval_start: r.dataIntervalStart,
    data_interval_end: r.dataIntervalEnd,
    cursor: r.cursor,
    created_at: r.createdAt,
    finished_at: r.finishedAt,
    last_updated_at: r.lastUpdatedAt,
    batch_export: r.batchExportId,
    backfill: r.backfillId,
  };
}

export function toBatchExport({ record: r, latestRuns }: ExportView) {
  return {
    id: r.id,
    team_id: r.teamId,
    name: r.name,
    model: r.model,
    destination: { type: r.destinationType, config: r.destinationConfig, integration: null },
    interval: r.interval,
    timezone: r.timezone,
    paused: r.paused,
    paused_reason: r.pausedReason,
    created_at: r.createdAt,
    last_updated_at: r.lastUpdatedAt,
    last_paused_at: r.lastPausedAt,
    start_at: r.startAt,
    end_at: r.endAt,
    latest_runs: latestRuns.map(toRun),
    hogql_query: r.hogqlQuery,
    schema: r.schema,
    filters: r.filters,
    ...offsetView(r.interval, r.intervalOffset),
  };
}

/** PostHog's progress: 1 when completed, null unless running, else the share of finished runs. */
export function toBackfill(b: BackfillRecord, counts: Record<string, number>) {
  const finished = (counts.Completed ?? 0) + (counts.Failed ?? 0);
  let progress = null;
  if (b.status === 'Completed') progress = { total_runs: b.totalRuns, finished_runs: finished, progress: 1 };
  else if ((b.status === 'Running' || b.status === 'Starting') && b.totalRuns > 0) {
    progress = {
      total_runs: b.totalRuns,
      finished_runs: finished,
      progress: Math.round((finished / b.totalRuns) * 10) / 10,
    };
  }
  return {
    id: b.id,
    team_id: b.teamId,
    batch_export: b.batchExportId,
    start_at: b.startAt,
    end_at: b.endAt,
    status: b.status,
    created_at: b.createdAt,
    finished_at: b.finishedAt,
    last_updated_at: b.lastUpdatedAt,
    progress,
  };
}
