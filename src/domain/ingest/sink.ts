import type { WriteSet } from './rows.js';

/**
 * Where capture's rows go once persons are processed: the promise settles when a 200 may be
 * answered. Either straight into the engine by a group commit (`CAPTURE_JOURNAL=off`: settled
 * once inserted), or into the node's journal (settled once fsync'd there; journal-sink.ts).
 */
export interface IngestSink {
  /**
   * `rows`: the set's row count (the unit of the pending-rows limit); `teamId`: the project the
   * rows belong to (a read for another project need not wait for them).
   */
  add(set: WriteSet, rows: number, teamId: number): Promise<void>;
  /** Rows accepted and not yet in the engine. */
  pendingRows(): number;
  /** Refuses new work and writes whatever was accepted. */
  close(): Promise<void>;
}
