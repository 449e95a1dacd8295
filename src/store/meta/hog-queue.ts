import type { ColumnType } from 'kysely';
import { iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface HogQueueTable {
  id: ColumnType<number, never, never>;
  team_id: number;
  function_id: string;
  event_uuid: string;
  globals: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_at: ColumnType<Date | string, string, string>;
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  lease_expires_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  created_at: ColumnType<Date | string, string, never>;
}

export interface HogMasksTable {
  function_id: string;
  hash: string;
  expires_at: ColumnType<Date | string, string, string>;
  count: ColumnType<number, number | undefined, number>;
}

declare module './tables.js' {
  interface MetaTables {
    hog_queue: HogQueueTable;
    hog_masks: HogMasksTable;
  }
}

export interface QueuedInvocation {
  teamId: number;
  functionId: string;
  eventUuid: string;
  globals: Record<string, unknown>;
}

export interface HogJob extends QueuedInvocation {
  id: number;
  attempts: number;
  createdAt: string;
}

/** Queues invocations; an (destination, event) pair already queued is left as it is (replays). */
export async function enqueueInvocations(db: MetaDb, jobs: QueuedInvocation[], now: string): Promise<void> {
  // Bounded statements: SQLite takes at most 32 766 parameters.
  for (let i = 0; i < jobs.length; i += 500) {
    await db
      .insertInto('hog_queue')
      .values(
        jobs.slice(i, i + 500).map((j) => ({
          team_id: j.teamId,
          function_id: j.functionId,
          event_uuid: j.eventUuid,
          globals: toJson(j.globals),
          next_at: now,
          created_at: now,
        })),
      )
      .onConflict((oc) => oc.columns(['function_id', 'event_uuid']).doNothing())
      .execute();
  }
}

/**
 * Takes up to `limit` due jobs (not leased, or leased by a node whose lease ran out), oldest first,
 * skipping `busy` destinations (at their concurrency limit on this node). The candidates are taken
 * by one conditional update that repeats the "free" condition, so two nodes racing for a row
 * cannot both win it; the rows this node's lease (owner and its unique expiry) now holds are its.
 */
export async function claimJobs(
  db: MetaDb,
  owner: string,
  opts: { now: string; until: string; limit: number; busy: string[] },
): Promise<HogJob[]> {
  let q = db
    .selectFrom('hog_queue')
    .select('id')
    .where('next_at', '<=', opts.now)
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<', opts.now)]));
  if (opts.busy.length > 0) q = q.where('function_id', 'not in', opts.busy);
  const candidates = (await q.orderBy('next_at').orderBy('id').limit(opts.limit).execute()).map((c) =>
    Number(c.id),
  );
  if (candidates.length === 0) return [];
  await db
    .updateTable('hog_queue')
    .set({ lease_owner: owner, lease_expires_at: opts.until })
    .where('id', 'in', candidates)
    .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_expires_at', '<', opts.now)]))
    .execute();
  const rows = await db
    .selectFrom('hog_queue')
    .selectAll()
    .where('id', 'in', candidates)
    .where('lease_owner', '=', owner)
    .where('lease_expires_at', '=', opts.until)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    teamId: Number(r.team_id),
    functionId: r.function_id,
    eventUuid: r.event_uuid,
    globals: json<Record<string, unknown>>(r.globals),
    attempts: Number(r.attempts),
    createdAt: iso(r.created_at),
  }));
}

/** Sent, or failed for good: the job leaves the queue. */
export async function finishJob(db: MetaDb, id: number, owner: string): Promise<void> {
  await db.deleteFrom('hog_queue').where('id', '=', id).where('lease_owner', '=', owner).execute();
}

/** Back in the queue, due at `nextAt`, one more attempt counted. */
export async function retryJob(
  db: MetaDb,
  id: number,
  owner: string,
  attempts: number,
  nextAt: string,
): Promise<void> {
  await db
    .updateTable('hog_queue')
    .set({ attempts, next_at: nextAt, lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

/** Jobs of one destination still queued (a disabled one's are dropped). */
export async function dropJobs(db: MetaDb, functionId: string): Promise<void> {
  await db.deleteFrom('hog_queue').where('function_id', '=', functionId).execute();
}

export async function queuedJobs(db: MetaDb): Promise<number> {
  const row = await db
    .selectFrom('hog_queue')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Counts one invocation under a masking key and answers how many the key has seen in its TTL
 * (1: the first). The TTL runs from the first: an expired key starts again at 1. One atomic
 * upsert, so nodes counting the same key at once each get their own number.
 */
export async function countMask(
  db: MetaDb,
  functionId: string,
  hash: string,
  now: string,
  expiresAt: string,
): Promise<number> {
  await db
    .deleteFrom('hog_masks')
    .where('function_id', '=', functionId)
    .where('hash', '=', hash)
    .where('expires_at', '<=', now)
    .execute();
  const row = await db
    .insertInto('hog_masks')
    .values({ function_id: functionId, hash, expires_at: expiresAt, count: 1 })
    .onConflict((oc) =>
      oc.columns(['function_id', 'hash']).doUpdateSet((eb) => ({ count: eb('hog_masks.count', '+', 1) })),
    )
    .returning('count')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
