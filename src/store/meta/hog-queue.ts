import { type ColumnType, type Selectable, sql } from 'kysely';
import { iso, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';
import { dialectOf } from './dialect.js';
import { preparedRows } from './prepared.js';

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
  await insertJobs(db, jobs, now, null);
}

/**
 * Queues invocations already leased to `owner` until `until` (the node that matched them sends
 * them: no claim needed). Answers the jobs written; a pair already queued is not (replays: whoever
 * holds it sends it).
 */
export async function enqueueLeased(
  db: MetaDb,
  jobs: QueuedInvocation[],
  now: string,
  lease: { owner: string; until: string },
): Promise<HogJob[]> {
  return insertJobs(db, jobs, now, lease);
}

const JOB_COLUMNS = [
  'team_id',
  'function_id',
  'event_uuid',
  'globals',
  'next_at',
  'lease_owner',
  'lease_expires_at',
  'created_at',
] as const;
/** Rows per insert statement: each row count's statement is compiled once (`preparedRows`). */
const JOBS_PER_INSERT = 64;
/** The queue's insert of `rows` (each `JOB_COLUMNS` in order), a pair already queued left as it is. */
const jobsInsert = (db: MetaDb, rows: unknown[][]) =>
  db
    .insertInto('hog_queue')
    .values(rows.map((r) => Object.fromEntries(JOB_COLUMNS.map((c, k) => [c, r[k]]))) as never)
    .onConflict((oc) => oc.columns(['function_id', 'event_uuid']).doNothing());
const asIs = (row: readonly unknown[]) => row;
const insertFree = preparedRows(jobsInsert, asIs, JOB_COLUMNS.length);
const insertLeased = preparedRows(
  (db: MetaDb, rows) => jobsInsert(db, rows).returning(['id', 'function_id', 'event_uuid']),
  asIs,
  JOB_COLUMNS.length,
);

async function insertJobs(
  db: MetaDb,
  jobs: QueuedInvocation[],
  now: string,
  lease: { owner: string; until: string } | null,
): Promise<HogJob[]> {
  const written: HogJob[] = [];
  for (let i = 0; i < jobs.length; i += JOBS_PER_INSERT) {
    const slice = jobs.slice(i, i + JOBS_PER_INSERT);
    const rows = slice.map((j) => [
      j.teamId,
      j.functionId,
      j.eventUuid,
      toJson(j.globals),
      lease ? lease.until : now,
      lease?.owner ?? null,
      lease?.until ?? null,
      now,
    ]);
    if (!lease) {
      await insertFree(db, rows);
      continue;
    }
    const byKey = new Map(slice.map((j) => [`${j.functionId}\n${j.eventUuid}`, j]));
    for (const r of await insertLeased(db, rows)) {
      const j = byKey.get(`${r.function_id}\n${r.event_uuid}`);
      if (j) written.push({ ...j, id: Number(r.id), attempts: 0, createdAt: now });
    }
  }
  return written;
}

/**
 * Destinations with queued jobs (due or not). A skip scan over the `(function_id, next_at, id)`
 * index: one seek per destination, however long the queue (a `DISTINCT` would read every row).
 */
export async function queuedFunctionIds(db: MetaDb): Promise<string[]> {
  const result = await sql<{ id: string | null }>`
    with recursive f(id) as (
      select min(function_id) from hog_queue
      union all
      select (select min(q.function_id) from hog_queue q where q.function_id > f.id) from f where f.id is not null
    )
    select id from f where id is not null`.execute(db);
  return result.rows.map((r) => String(r.id));
}

/**
 * Takes up to `limit` due jobs of one destination, oldest first, under this node's lease. A taken
 * job's `next_at` moves to the lease's end, so due means "not leased, or leased by a node whose
 * lease ran out" and the scan reads only jobs it can take (leased and retrying jobs are not due).
 * One conditional update: the subquery's candidates are re-checked as they are updated, and on
 * PostgreSQL rows another node is taking are skipped, so two nodes never win the same job.
 */
export async function claimDue(
  db: MetaDb,
  owner: string,
  opts: { now: string; until: string; functionId: string; limit: number },
): Promise<HogJob[]> {
  const lock = dialectOf(db).lockSkipLocked('c');
  const result = await sql<Selectable<HogQueueTable>>`
    update hog_queue
    set lease_owner = ${owner}, lease_expires_at = ${opts.until}, next_at = ${opts.until}
    where id in (
      select c.id from hog_queue c
      where c.function_id = ${opts.functionId} and c.next_at <= ${opts.now}
      order by c.next_at, c.id
      limit ${opts.limit}
      ${lock}
    ) and next_at <= ${opts.now}
    returning *`.execute(db);
  return result.rows
    .map((r) => ({
      id: Number(r.id),
      teamId: Number(r.team_id),
      functionId: r.function_id,
      eventUuid: r.event_uuid,
      globals: json<Record<string, unknown>>(r.globals),
      attempts: Number(r.attempts),
      createdAt: iso(r.created_at),
    }))
    .sort((a, b) => a.id - b.id);
}

/** Sent, or failed for good: the jobs leave the queue (those this node still holds). */
export async function finishJobs(db: MetaDb, ids: number[], owner: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .deleteFrom('hog_queue')
      .where('id', 'in', ids.slice(i, i + 500))
      .where('lease_owner', '=', owner)
      .execute();
  }
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

/** Claimed jobs this node will not send (it stops): due at `now` again, attempts unchanged. */
export async function releaseJobs(db: MetaDb, ids: number[], owner: string, now: string): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('hog_queue')
      .set({ next_at: now, lease_owner: null, lease_expires_at: null })
      .where('id', 'in', ids.slice(i, i + 500))
      .where('lease_owner', '=', owner)
      .execute();
  }
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
