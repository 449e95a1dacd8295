import { randomUUID } from 'node:crypto';
import {
  type AsyncDeletion,
  claimDeletion,
  type DeletionScope,
  type DeletionStep,
  insertDeletion,
  saveDeletionProgress,
  settleDeletion,
} from '../../store/meta/async-deletions.js';
import type { Deps } from '../deps.js';

/**
 * Deleting a person's events and recordings runs in the background, as PostHog's AsyncDeletion
 * does: the request removes the person at once and queues the rest, which can take a while on a
 * large project (one engine mutation per table). Every step is idempotent, so a node that dies
 * mid-way leaves a row another node (or this one, restarted) takes over when the lease expires.
 */

/** Which tables a scope deletes from, in order: the events last, since sessions are found from them. */
const TABLES: Record<DeletionScope, string[]> = {
  events: ['session_replay_snapshots', 'session_replay_events', 'sessions', 'events'],
  recordings: ['session_replay_snapshots', 'session_replay_events'],
};

/** Sessions one deletion looks up at most (a person with more keeps the rest of its recordings). */
const MAX_SESSIONS = 100_000;
/** Values per `IN` list sent to the engine. */
const CHUNK = 10_000;
const LEASE_MS = 5 * 60_000;
/**
 * Only events stored before the deletion was asked for: a distinct id is free again once its
 * person is gone, and a new person's events under it must stay; a person kept (`delete_events/`)
 * keeps what it does afterwards.
 */
const BEFORE = "inserted_at <= toDateTime64({before:String}, 6, 'UTC')";
/** An ISO time as the engine parses it, to the millisecond. */
const engineMs = (iso: string) => iso.replace('T', ' ').replace('Z', '');
/** Attempts before a deletion that keeps failing is marked failed (and shown so). */
export const MAX_ATTEMPTS = 5;

export async function queuePersonDeletion(
  deps: Pick<Deps, 'meta' | 'now'>,
  d: {
    teamId: number;
    scope: DeletionScope;
    personIds: string[];
    distinctIds: string[];
    userId: number | null;
  },
): Promise<AsyncDeletion> {
  return insertDeletion(deps.meta, {
    teamId: d.teamId,
    scope: d.scope,
    personIds: d.personIds,
    distinctIds: d.distinctIds,
    steps: TABLES[d.scope].map((table) => ({ table, rows: null, done: false })),
    createdBy: d.userId,
    now: deps.now().toISOString(),
  });
}

function chunks<T>(values: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += CHUNK) out.push(values.slice(i, i + CHUNK));
  return out;
}

/** The sessions a deletion covers: those of the persons' events (scope `events`) and recordings. */
async function sessionsOf(deps: Deps, d: AsyncDeletion): Promise<string[]> {
  const t = (name: string) => deps.events.table(name);
  const found = new Set<string>();
  const params = { team: d.teamId, ids: d.personIds, dids: d.distinctIds, before: engineMs(d.createdAt) };
  if (d.scope === 'events') {
    const rows = await deps.events.query<{ s: string }>(
      `SELECT DISTINCT \`$session_id\` AS s FROM ${t('events')}
       WHERE team_id = {team:Int64} AND \`$session_id\` != ''
         AND (person_id IN {ids:Array(UUID)} OR distinct_id IN {dids:Array(String)}) AND ${BEFORE}
       LIMIT ${MAX_SESSIONS}`,
      { params },
    );
    for (const r of rows) found.add(r.s);
  }
  if (d.distinctIds.length) {
    const rows = await deps.events.query<{ s: string }>(
      `SELECT DISTINCT session_id AS s FROM ${t('session_replay_events')}
       WHERE team_id = {team:Int64} AND distinct_id IN {dids:Array(String)}
         AND min_first_timestamp <= toDateTime64({before:String}, 6, 'UTC') LIMIT ${MAX_SESSIONS}`,
      { params },
    );
    for (const r of rows) found.add(r.s);
  }
  return [...found].slice(0, MAX_SESSIONS);
}

/** Counts, then deletes, one table's rows of the deletion; returns how many there were. */
async function deleteFrom(deps: Deps, d: AsyncDeletion, table: string, sessions: string[]): Promise<number> {
  const name = deps.events.table(table);
  let rows = 0;
  // Events by person id, then by distinct id (events written before a merge carry the other
  // person's id): the second count sees only what the first left, so no row is counted twice.
  const families: Array<{ where: string; values: string[] }> =
    table === 'events'
      ? [
          { where: `person_id IN {v:Array(UUID)} AND ${BEFORE}`, values: d.personIds },
          { where: `distinct_id IN {v:Array(String)} AND ${BEFORE}`, values: d.distinctIds },
        ]
      : [{ where: 'session_id IN {v:Array(String)}', values: sessions }];
  for (const family of families) {
    for (const part of chunks(family.values)) {
      const params = { team: d.teamId, v: part, before: engineMs(d.createdAt) };
      const where = `team_id = {team:Int64} AND ${family.where}`;
      const [row] = await deps.events.query<{ n: number }>(
        `SELECT count() AS n FROM ${name} WHERE ${where}`,
        {
          params,
        },
      );
      const n = Number(row?.n ?? 0);
      if (n > 0) await deps.events.command(`DELETE FROM ${name} WHERE ${where}`, { params });
      rows += n;
    }
  }
  return rows;
}

/**
 * Runs one claimed deletion to its end, saving each step as it finishes. Returns false when the
 * lease was lost meanwhile (another node took the row over after this one stalled).
 */
async function runDeletion(deps: Deps, d: AsyncDeletion, owner: string): Promise<boolean> {
  const sessions = await sessionsOf(deps, d);
  const steps: DeletionStep[] = d.steps.map((s) => ({ ...s }));
  for (const step of steps) {
    if (step.done) continue;
    const rows = await deleteFrom(deps, d, step.table, sessions);
    step.rows = (step.rows ?? 0) + rows;
    step.done = true;
    const until = new Date(deps.now().getTime() + LEASE_MS).toISOString();
    if (!(await saveDeletionProgress(deps.meta, d.id, owner, steps, until))) return false;
  }
  return true;
}

export interface DeletionWorker {
  /** Look for work now (after a deletion is queued) instead of at the next poll. */
  wake: () => void;
  /** Resolves once nothing is queued that this node can take (tests). */
  drain: () => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * Works through queued deletions one at a time on this node: wakes when told and polls every
 * `pollMs` (for work queued by another node, or left behind by one that died).
 */
export function startDeletionWorker(
  deps: Deps,
  options: { pollMs: number; onError: (err: unknown) => void },
): DeletionWorker {
  const owner = `node-${randomUUID()}`;
  let stopped = false;
  let pass: Promise<void> = Promise.resolve();
  let again = false;

  const runOnce = async (): Promise<void> => {
    while (!stopped) {
      const now = deps.now();
      const d = await claimDeletion(
        deps.meta,
        owner,
        now.toISOString(),
        new Date(now.getTime() + LEASE_MS).toISOString(),
      );
      if (!d) return;
      try {
        if (await runDeletion(deps, d, owner))
          await settleDeletion(deps.meta, d.id, owner, {
            status: 'done',
            error: null,
            now: deps.now().toISOString(),
          });
      } catch (err) {
        options.onError(err);
        await settleDeletion(deps.meta, d.id, owner, {
          status: d.attempts >= MAX_ATTEMPTS ? 'failed' : 'queued',
          error: err instanceof Error ? err.message.slice(0, 500) : String(err).slice(0, 500),
          now: deps.now().toISOString(),
        });
        // A deletion that failed goes back to the queue for the next poll, not straight away.
        return;
      }
    }
  };

  let running = false;
  const kick = () => {
    if (stopped) return pass;
    if (running) {
      again = true;
      return pass;
    }
    running = true;
    pass = (async () => {
      do {
        again = false;
        await runOnce().catch(options.onError);
      } while (again && !stopped);
      running = false;
    })();
    return pass;
  };

  const timer = setInterval(kick, options.pollMs);
  timer.unref();
  return {
    wake: () => void kick(),
    drain: async () => {
      await kick();
      await pass;
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await pass;
    },
  };
}
