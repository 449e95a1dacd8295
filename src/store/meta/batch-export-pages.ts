import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { type BackfillRecord, toBackfillRecord } from './batch-export-backfills.js';
import { type RunRecord, toRunRecord } from './batch-export-runs.js';
import type { MetaDb } from './db.js';

/** A keyset position in a cursor-paginated list: the last row's sort value and id. */
export interface Position {
  value: string;
  id: string;
  /** Walking back towards the start (a `previous` link). */
  back: boolean;
}

export interface KeysetQuery<C extends string> {
  orderBy: C;
  descending: boolean;
  position?: Position;
  /** Inclusive lower and upper bounds on the sort column. */
  from?: string;
  to?: string;
  limit: number;
}

/**
 * Rows after (or, walking back, before) `position`, at most `limit`, always in the requested order;
 * `more` says whether another page lies further in the walking direction.
 */
function keyset<C extends string>(q: KeysetQuery<C>) {
  const col = sql.ref(q.orderBy);
  const forward = q.descending !== (q.position?.back ?? false);
  const direction = forward ? sql`desc` : sql`asc`;
  const conditions = [];
  if (q.from) conditions.push(sql`${col} >= ${q.from}`);
  if (q.to) conditions.push(sql`${col} <= ${q.to}`);
  if (q.position) {
    const op = forward ? sql`<` : sql`>`;
    conditions.push(sql`(${col}, id) ${op} (${q.position.value}, ${q.position.id})`);
  }
  const where: RawBuilder<SqlBool> =
    conditions.length > 0 ? sql<SqlBool>`${sql.join(conditions, sql` and `)}` : sql<SqlBool>`1 = 1`;
  return { where, order: sql`${col} ${direction}, id ${direction}`, reversed: q.position?.back ?? false };
}

export async function pageRuns(
  db: MetaDb,
  exportId: string,
  q: KeysetQuery<'created_at' | 'data_interval_start'>,
): Promise<{ records: RunRecord[]; more: boolean }> {
  const k = keyset(q);
  const rows = await db
    .selectFrom('batch_export_runs')
    .selectAll()
    .where('batch_export_id', '=', exportId)
    .where(k.where)
    .orderBy(k.order)
    .limit(q.limit + 1)
    .execute();
  const records = rows.slice(0, q.limit).map(toRunRecord);
  return { records: k.reversed ? records.reverse() : records, more: rows.length > q.limit };
}

export async function pageBackfills(
  db: MetaDb,
  exportId: string,
  q: KeysetQuery<'created_at' | 'start_at'>,
): Promise<{ records: BackfillRecord[]; more: boolean }> {
  const k = keyset(q);
  const rows = await db
    .selectFrom('batch_export_backfills')
    .selectAll()
    .where('batch_export_id', '=', exportId)
    .where(k.where)
    .orderBy(k.order)
    .limit(q.limit + 1)
    .execute();
  const records = rows.slice(0, q.limit).map(toBackfillRecord);
  return { records: k.reversed ? records.reverse() : records, more: rows.length > q.limit };
}
