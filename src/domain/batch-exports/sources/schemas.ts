import type { ExportColumn, RowSchema } from '../destinations/types.js';
import type { Model } from '../types.js';

const col = (name: string, kind: ExportColumn['kind']): ExportColumn => ({ name, kind });

/**
 * What each model exports. `_inserted_at` is when the row reached Burrow: windows are cut on it,
 * so it tells which run delivered a row.
 */
export const ROW_SCHEMAS: Record<Model, RowSchema> = {
  events: {
    key: ['uuid'],
    columns: [
      col('uuid', 'uuid'),
      col('event', 'text'),
      col('properties', 'json'),
      col('distinct_id', 'text'),
      col('team_id', 'integer'),
      col('timestamp', 'timestamp'),
      col('created_at', 'timestamp'),
      col('elements_chain', 'text'),
      col('person_id', 'uuid'),
      col('person_properties', 'json'),
      col('session_id', 'text'),
      col('_inserted_at', 'timestamp'),
    ],
  },
  persons: {
    key: ['person_id'],
    columns: [
      col('team_id', 'integer'),
      col('person_id', 'uuid'),
      col('distinct_ids', 'json'),
      col('properties', 'json'),
      col('is_identified', 'bool'),
      col('is_deleted', 'bool'),
      col('created_at', 'timestamp'),
      col('version', 'bigint'),
      col('_inserted_at', 'timestamp'),
    ],
  },
  sessions: {
    key: ['session_id'],
    columns: [
      col('team_id', 'integer'),
      col('session_id', 'text'),
      col('distinct_id', 'text'),
      col('start_timestamp', 'timestamp'),
      col('end_timestamp', 'timestamp'),
      col('urls', 'json'),
      col('entry_url', 'text'),
      col('exit_url', 'text'),
      col('pageview_count', 'bigint'),
      col('autocapture_count', 'bigint'),
      col('screen_count', 'bigint'),
      col('event_count', 'bigint'),
      col('_inserted_at', 'timestamp'),
    ],
  },
};
