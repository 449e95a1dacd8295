import type { ColumnType } from 'kysely';
import { iso } from './codec.js';
import type { MetaDb } from './db.js';

export interface HogFunctionLogsTable {
  id: ColumnType<number, never, never>;
  team_id: number;
  function_id: string;
  instance_id: string;
  level: string;
  message: string;
  timestamp: ColumnType<Date | string, string, string>;
}

export interface HogFunctionMetricsTable {
  function_id: string;
  hour: ColumnType<Date | string, string, string>;
  kind: string;
  name: string;
  count: number;
}

declare module './tables.js' {
  interface MetaTables {
    hog_function_logs: HogFunctionLogsTable;
    hog_function_metrics: HogFunctionMetricsTable;
  }
}

export type LogLevel = 'DEBUG' | 'LOG' | 'INFO' | 'WARN' | 'ERROR';

export interface FunctionLog {
  teamId: number;
  functionId: string;
  /** The invocation the line belongs to (PostHog's `instance_id`). */
  instanceId: string;
  level: LogLevel;
  message: string;
  timestamp: string;
}

/** The newest lines kept per destination: older ones are deleted as new ones come. */
export const LOGS_KEPT = 1000;

export async function appendLogs(db: MetaDb, logs: FunctionLog[]): Promise<void> {
  if (logs.length === 0) return;
  await db
    .insertInto('hog_function_logs')
    .values(
      logs.map((l) => ({
        team_id: l.teamId,
        function_id: l.functionId,
        instance_id: l.instanceId,
        level: l.level,
        message: l.message.slice(0, 2000),
        timestamp: l.timestamp,
      })),
    )
    .execute();
  for (const functionId of new Set(logs.map((l) => l.functionId))) {
    const cut = await db
      .selectFrom('hog_function_logs')
      .select('id')
      .where('function_id', '=', functionId)
      .orderBy('id', 'desc')
      .offset(LOGS_KEPT)
      .limit(1)
      .executeTakeFirst();
    if (cut)
      await db
        .deleteFrom('hog_function_logs')
        .where('function_id', '=', functionId)
        .where('id', '<=', cut.id)
        .execute();
  }
}

export async function listLogs(
  db: MetaDb,
  functionId: string,
  q: {
    limit: number;
    levels?: string[];
    before?: string;
    after?: string;
    search?: string;
    instanceId?: string;
  },
) {
  let s = db.selectFrom('hog_function_logs').selectAll().where('function_id', '=', functionId);
  if (q.levels && q.levels.length > 0) s = s.where('level', 'in', q.levels);
  if (q.before) s = s.where('timestamp', '<', q.before);
  if (q.after) s = s.where('timestamp', '>', q.after);
  if (q.instanceId) s = s.where('instance_id', '=', q.instanceId);
  if (q.search) s = s.where('message', 'like', `%${q.search.replace(/[%_\\]/g, (c) => `\\${c}`)}%`);
  const rows = await s.orderBy('id', 'desc').limit(q.limit).execute();
  return rows.map((r) => ({
    instanceId: r.instance_id,
    level: r.level,
    message: r.message,
    timestamp: iso(r.timestamp),
  }));
}

/** Hour buckets kept per destination (90 days): older ones are deleted as counts are added. */
export const METRIC_HOURS_KEPT = 24 * 90;

/** Adds to hourly counters (`kind` success/failure/other, `name` succeeded/failed/filtered/...). */
export async function addMetrics(
  db: MetaDb,
  counts: Array<{ functionId: string; hour: string; kind: string; name: string; count: number }>,
): Promise<void> {
  // One statement for all: PostgreSQL refuses two rows for one key in one upsert, so equal keys
  // are added up first.
  const merged = new Map<string, (typeof counts)[number]>();
  for (const c of counts) {
    const key = `${c.functionId}\n${c.hour}\n${c.kind}\n${c.name}`;
    const known = merged.get(key);
    if (known) known.count += c.count;
    else merged.set(key, { ...c });
  }
  const rows = [...merged.values()];
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto('hog_function_metrics')
      .values(
        rows.slice(i, i + 500).map((c) => ({
          function_id: c.functionId,
          hour: c.hour,
          kind: c.kind,
          name: c.name,
          count: c.count,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(['function_id', 'hour', 'kind', 'name'])
          .doUpdateSet((eb) => ({ count: eb('hog_function_metrics.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
}

export async function pruneMetrics(db: MetaDb, before: string): Promise<void> {
  await db.deleteFrom('hog_function_metrics').where('hour', '<', before).execute();
}

export async function readMetrics(db: MetaDb, functionId: string, after: string, before: string) {
  const rows = await db
    .selectFrom('hog_function_metrics')
    .selectAll()
    .where('function_id', '=', functionId)
    .where('hour', '>=', after)
    .where('hour', '<', before)
    .execute();
  return rows.map((r) => ({ hour: iso(r.hour), kind: r.kind, name: r.name, count: Number(r.count) }));
}
