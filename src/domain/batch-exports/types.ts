/** Names and records shared by the batch export modules. Values are PostHog's spellings. */
export const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'] as const;
export type Interval = (typeof INTERVALS)[number];

export const MODELS = ['events', 'persons', 'sessions'] as const;
export type Model = (typeof MODELS)[number];

export const DESTINATION_TYPES = ['Postgres', 'S3', 'HTTP', 'NoOp'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** Every type PostHog knows; the others are refused with a clear message rather than stored. */
export const KNOWN_DESTINATION_TYPES: string[] = [
  'Postgres',
  'S3',
  'HTTP',
  'NoOp',
  'Snowflake',
  'Redshift',
  'BigQuery',
  'Databricks',
  'AzureBlob',
  'Workflows',
  'AwsS3',
  'S3Compatible',
  'FileDownload',
];

export const RUN_STATUSES = [
  'Cancelled',
  'Completed',
  'ContinuedAsNew',
  'Failed',
  'FailedRetryable',
  'FailedBilling',
  'Terminated',
  'TimedOut',
  'Running',
  'Starting',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Runs a worker may pick up; `Running` only once its lease has expired. */
export const ACTIVE_RUN_STATUSES: RunStatus[] = ['Starting', 'Running', 'FailedRetryable'];

export type { BackfillRecord } from '../../store/meta/batch-export-backfills.js';
export type { RunRecord } from '../../store/meta/batch-export-runs.js';
export type { BatchExportRecord } from '../../store/meta/batch-exports.js';
