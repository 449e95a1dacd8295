import type { Deps } from '../deps.js';
import type { Destinations } from './destinations/types.js';
import type { SecretBox } from './secrets.js';

/** Tunables of the scheduler and the runs; see the README's configuration table. */
export interface ExportSettings {
  /** Rows per page read from the events store and written to the destination. */
  pageRows: number;
  /** How long after a window ends before it is exported, so rows still in flight land first. */
  settleMs: number;
  /** How long a node holds a run without renewing before another node may take it over. */
  leaseMs: number;
  /** Attempts per run before it is Failed. */
  maxAttempts: number;
  /** First retry delay; doubled on each attempt, capped at an hour. */
  retryBaseMs: number;
  /** Consecutive Failed runs after which the export pauses itself. */
  autoPauseAfter: number;
  /** Runs one node executes at once. */
  concurrency: number;
  /** How often the scheduler looks for work. */
  pollMs: number;
}

export interface ExportDeps extends Deps {
  secrets: SecretBox;
  destinations: Destinations;
  settings: ExportSettings;
}
