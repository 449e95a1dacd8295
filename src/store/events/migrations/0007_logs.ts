import type { EventsMigration } from '../migrate.js';

/**
 * OpenTelemetry log records (`/i/v1/logs`, posthog-node's `captureLog`), with the columns of
 * PostHog's HogQL `logs` table. Each record's `uuid` is derived from its content (capture's
 * otlp-logs.ts), so an SDK's retry of a request whose answer it lost collapses with the first copy
 * in this ReplacingMergeTree (duplicates share the month partition: the time is in the key); readers
 * use FINAL, as for events.
 */
export const logsTable: EventsMigration = {
  name: '0007_logs',
  statements: (store) => [
    `CREATE TABLE IF NOT EXISTS ${store.table('logs')} (
  uuid String,
  team_id Int64,
  trace_id String,
  span_id String,
  trace_flags Int64,
  body String,
  attributes String,
  timestamp DateTime64(6, 'UTC'),
  observed_timestamp DateTime64(6, 'UTC'),
  severity_text String,
  severity_number Int32,
  level String,
  resource_attributes String,
  instrumentation_scope String,
  event_name String,
  service_name String,
  inserted_at DateTime64(6, 'UTC') DEFAULT now64(6)
)
ENGINE = ReplacingMergeTree(inserted_at)
PARTITION BY toYYYYMM(timestamp)
ORDER BY (team_id, toDate(timestamp), service_name, timestamp, uuid)`,
  ],
};
