import type { DestinationType } from '../types.js';
import type { FieldSpecs } from './config.js';

/** What an exported column holds; destinations map these to their own types. */
export type ColumnKind = 'text' | 'uuid' | 'json' | 'timestamp' | 'integer' | 'bigint' | 'float' | 'bool';

export interface ExportColumn {
  name: string;
  kind: ColumnKind;
}

/** The shape of a model's rows and the columns that identify one (the upsert key). */
export interface RowSchema {
  columns: ExportColumn[];
  /** May be empty (a query-based export without `uuid`): rows are then appended, not upserted. */
  key: string[];
  /** Columns a `hogql_query` chose, rather than a model's fixed set. */
  custom?: boolean;
}

/**
 * One exported row. Values are null, strings, numbers or booleans: `json` columns hold JSON text,
 * `timestamp` columns ISO 8601 UTC with microseconds.
 */
export type ExportRow = Record<string, string | number | boolean | null>;

export interface WriteContext {
  exportId: string;
  runId: string;
  teamId: number;
  dataIntervalStart: string | null;
  dataIntervalEnd: string;
  schema: RowSchema;
  signal: AbortSignal;
}

/** Receives a run's rows page by page. `close` makes them durable; `abort` leaves nothing half-done. */
export interface Writer {
  /** Returns the number of bytes sent. */
  write(rows: ExportRow[]): Promise<number>;
  close(): Promise<number>;
  abort(): Promise<void>;
}

/** An error retrying cannot fix (bad credentials, a refused payload). */
export class PermanentError extends Error {}

/** A failure to show the user as is (a destination test step's message). */
export class StepFailure extends Error {}

export interface TestStep {
  name: string;
  description: string;
  /** Config fields without which the step cannot run. */
  needs: string[];
  run(config: Record<string, unknown>, signal: AbortSignal): Promise<void>;
}

export interface Destination {
  fields: FieldSpecs;
  /**
   * Rules beyond field types, on the merged config; raise ApiError (attr "destination"). May return
   * the config normalised (e.g. a blank optional field stored as null).
   */
  validate?(
    config: Record<string, unknown>,
    model: string,
  ): undefined | Record<string, unknown> | Promise<undefined | Record<string, unknown>>;
  open(config: Record<string, unknown>, ctx: WriteContext): Promise<Writer>;
  steps: TestStep[];
}

/** One client per destination type; the adapters (src/adapters/destinations/) provide them. */
export type Destinations = Record<DestinationType, Destination>;
