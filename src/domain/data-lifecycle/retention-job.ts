import type { EventsStore } from '../../store/events/store.js';
import type { MetaDb } from '../../store/meta/db.js';
import { teamsWithSettings } from '../../store/meta/teams.js';
import { engineTime, type RetentionCut, retentionCut } from './retention.js';

/** Which tables each cut deletes from, and the column that dates a row. */
const TARGETS: ReadonlyArray<{ cut: keyof RetentionCut; table: string; column: string }> = [
  { cut: 'events', table: 'events', column: 'timestamp' },
  // A session is gone when its last event is.
  { cut: 'events', table: 'sessions', column: 'max_timestamp' },
  { cut: 'events', table: 'logs', column: 'timestamp' },
  { cut: 'recordings', table: 'session_replay_events', column: 'max_last_timestamp' },
  { cut: 'recordings', table: 'session_replay_snapshots', column: 'timestamp' },
];

export interface RetentionDeps {
  meta: MetaDb;
  events: EventsStore;
  now: () => Date;
}

export interface RetentionPass {
  /** One entry per table a deletion was started in. */
  deleted: Array<{ teamId: number; table: string; before: string; rows: number }>;
}

/**
 * One pass: for every project with a retention period, delete what is older than its cut from
 * each table that holds such rows. The engine applies a delete as a mutation (a background rewrite
 * of the parts concerned); `wait` makes the pass wait for it (tests, `burrow` commands). A table is
 * skipped when nothing is older than the cut, so an idle pass costs one count per table and project.
 */
export async function runRetentionPass(
  deps: RetentionDeps,
  options: { wait?: boolean } = {},
): Promise<RetentionPass> {
  const pass: RetentionPass = { deleted: [] };
  const now = deps.now();
  for (const team of await teamsWithSettings(deps.meta)) {
    const cut = retentionCut(team.settings, now);
    for (const target of TARGETS) {
      const at = cut[target.cut];
      if (!at) continue;
      const before = engineTime(at);
      const table = deps.events.table(target.table);
      const where = `team_id = {team:Int64} AND ${target.column} < toDateTime64({before:String}, 6, 'UTC')`;
      const params = { team: team.id, before };
      const [row] = await deps.events.query<{ n: number }>(
        `SELECT count() AS n FROM ${table} WHERE ${where}`,
        {
          params,
        },
      );
      const rows = Number(row?.n ?? 0);
      if (rows === 0) continue;
      await deps.events.command(
        `ALTER TABLE ${table} DELETE WHERE ${where}${options.wait ? ' SETTINGS mutations_sync = 1' : ''}`,
        { params },
      );
      pass.deleted.push({ teamId: team.id, table: target.table, before, rows });
    }
  }
  return pass;
}

/**
 * Runs a pass every `everyMs` (one at a time; a pass that fails is logged and the next one tries
 * again). With several API nodes each runs it: the deletes are idempotent, and a table with
 * nothing left to delete costs a count.
 */
export function scheduleRetention(
  deps: RetentionDeps,
  options: { everyMs: number; onError: (err: unknown) => void },
): { stop: () => Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => runRetentionPass(deps)).catch(options.onError);
  }, options.everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
