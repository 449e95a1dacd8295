import type { ColumnType, Selectable } from 'kysely';
import { iso, isoOrNull, json, toJson } from './codec.js';
import type { MetaDb } from './db.js';

export interface AsyncDeletionsTable {
  id: ColumnType<number, never, never>;
  team_id: number;
  deletion_type: string;
  scope: string;
  person_ids: string;
  distinct_ids: string;
  status: string;
  progress: string;
  attempts: ColumnType<number, number | undefined, number>;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  lease_expires_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  created_by: ColumnType<number | null, number | null, never>;
  created_at: ColumnType<Date | string, string, never>;
  started_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  finished_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
}

declare module './tables.js' {
  interface MetaTables {
    async_deletions: AsyncDeletionsTable;
  }
}

export type DeletionStatus = 'queued' | 'running' | 'done' | 'failed';
/** `events`: events, the sessions they made and those sessions' recordings; `recordings`: recordings only. */
export type DeletionScope = 'events' | 'recordings';

/** One table's part of a deletion: how many rows it had to delete, and whether that step is over. */
export interface DeletionStep {
  table: string;
  rows: number | null;
  done: boolean;
}

export interface AsyncDeletion {
  id: number;
  teamId: number;
  deletionType: 'person';
  scope: DeletionScope;
  personIds: string[];
  distinctIds: string[];
  status: DeletionStatus;
  steps: DeletionStep[];
  attempts: number;
  error: string | null;
  createdBy: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

function fromRow(r: Selectable<AsyncDeletionsTable>): AsyncDeletion {
  return {
    id: Number(r.id),
    teamId: Number(r.team_id),
    deletionType: 'person',
    scope: r.scope as DeletionScope,
    personIds: json<string[]>(r.person_ids),
    distinctIds: json<string[]>(r.distinct_ids),
    status: r.status as DeletionStatus,
    steps: json<DeletionStep[]>(r.progress),
    attempts: Number(r.attempts),
    error: r.error,
    createdBy: r.created_by === null ? null : Number(r.created_by),
    createdAt: iso(r.created_at),
    startedAt: isoOrNull(r.started_at),
    finishedAt: isoOrNull(r.finished_at),
  };
}

export async function insertDeletion(
  db: MetaDb,
  d: {
    teamId: number;
    scope: DeletionScope;
    personIds: string[];
    distinctIds: string[];
    steps: DeletionStep[];
    createdBy: number | null;
    now: string;
  },
): Promise<AsyncDeletion> {
  const row = await db
    .insertInto('async_deletions')
    .values({
      team_id: d.teamId,
      deletion_type: 'person',
      scope: d.scope,
      person_ids: toJson(d.personIds),
      distinct_ids: toJson(d.distinctIds),
      status: 'queued',
      progress: toJson(d.steps),
      created_by: d.createdBy,
      created_at: d.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return fromRow(row);
}

export async function listDeletions(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: AsyncDeletion[] }> {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('async_deletions')
      .selectAll()
      .where('team_id', '=', teamId)
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('async_deletions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .executeTakeFirst(),
  ]);
  return { count: Number(total?.n ?? 0), results: rows.map(fromRow) };
}

export async function getDeletion(db: MetaDb, teamId: number, id: number): Promise<AsyncDeletion | null> {
  const row = await db
    .selectFrom('async_deletions')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? fromRow(row) : null;
}

/**
 * Takes the oldest deletion that is queued, or running under a lease that has expired (its node
 * died or stalled), for `owner` until `until`. The update is conditional on what was read, so two
 * nodes racing for one row cannot both win it.
 */
export async function claimDeletion(
  db: MetaDb,
  owner: string,
  now: string,
  until: string,
): Promise<AsyncDeletion | null> {
  for (let tries = 0; tries < 5; tries++) {
    const candidate = await db
      .selectFrom('async_deletions')
      .select(['id', 'status', 'lease_owner', 'started_at'])
      .where((eb) =>
        eb.or([
          eb('status', '=', 'queued'),
          eb.and([eb('status', '=', 'running'), eb('lease_expires_at', '<', now)]),
        ]),
      )
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!candidate) return null;
    const result = await db
      .updateTable('async_deletions')
      .set((eb) => ({
        status: 'running',
        lease_owner: owner,
        lease_expires_at: until,
        started_at: candidate.started_at === null ? now : isoOrNull(candidate.started_at),
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', '=', candidate.id)
      .where('status', '=', candidate.status)
      .where((eb) =>
        candidate.lease_owner === null
          ? eb('lease_owner', 'is', null)
          : eb('lease_owner', '=', candidate.lease_owner),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) continue;
    const row = await db
      .selectFrom('async_deletions')
      .selectAll()
      .where('id', '=', candidate.id)
      .executeTakeFirstOrThrow();
    return fromRow(row);
  }
  return null;
}

/** Records progress and extends the lease; false when the lease is no longer `owner`'s. */
export async function saveDeletionProgress(
  db: MetaDb,
  id: number,
  owner: string,
  steps: DeletionStep[],
  until: string,
): Promise<boolean> {
  const result = await db
    .updateTable('async_deletions')
    .set({ progress: toJson(steps), lease_expires_at: until })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends `owner`'s hold: `done`, `failed` for good, or back to `queued` to be tried again. */
export async function settleDeletion(
  db: MetaDb,
  id: number,
  owner: string,
  outcome: { status: DeletionStatus; error: string | null; now: string },
): Promise<boolean> {
  const over = outcome.status === 'done' || outcome.status === 'failed';
  const result = await db
    .updateTable('async_deletions')
    .set({
      status: outcome.status,
      error: outcome.error,
      lease_owner: null,
      lease_expires_at: null,
      finished_at: over ? outcome.now : null,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** When the project's latest finished deletion ended (ISO), or null: part of its queries' cache keys. */
export async function lastDeletionFinished(db: MetaDb, teamId: number): Promise<string | null> {
  const row = await db
    .selectFrom('async_deletions')
    .select((eb) => eb.fn.max('finished_at').as('at'))
    .where('team_id', '=', teamId)
    .where('status', '=', 'done')
    .executeTakeFirst();
  return row?.at ? isoOrNull(row.at as Date | string) : null;
}
