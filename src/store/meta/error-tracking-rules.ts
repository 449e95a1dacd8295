import { type ColumnType, sql } from 'kysely';
import { iso } from './codec.js';
import type { MetaDb } from './db.js';
import type { IssueAssignee } from './error-tracking.js';

type Timestamp = ColumnType<Date | string, string, string>;

interface RuleColumns {
  id: string;
  team_id: number;
  filters: string;
  order_key: ColumnType<number, number | undefined, number>;
  disabled_data: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ErrorTrackingGroupingRulesTable extends RuleColumns {
  description: string | null;
  assignee: string | null;
}

export interface ErrorTrackingSuppressionRulesTable extends RuleColumns {
  matched_count: ColumnType<number | string | bigint, number | undefined, never>;
}

declare module './tables.js' {
  interface MetaTables {
    error_tracking_grouping_rules: ErrorTrackingGroupingRulesTable;
    error_tracking_suppression_rules: ErrorTrackingSuppressionRulesTable;
  }
}

export type RuleKind = 'grouping' | 'suppression';

export interface RuleRecord {
  id: string;
  teamId: number;
  kind: RuleKind;
  /** PostHog's property group, parsed. */
  filters: unknown;
  orderKey: number;
  disabledData: unknown;
  /** Grouping rules only. */
  description: string | null;
  assignee: IssueAssignee | null;
  /** Suppression rules only: the exceptions dropped so far. */
  matchedCount: number;
  createdAt: string;
  updatedAt: string;
}

const tableOf = (kind: RuleKind) =>
  kind === 'grouping'
    ? ('error_tracking_grouping_rules' as const)
    : ('error_tracking_suppression_rules' as const);

const parse = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function toRule(kind: RuleKind, r: Record<string, unknown>): RuleRecord {
  return {
    id: r.id as string,
    teamId: r.team_id as number,
    kind,
    filters: parse(r.filters as string),
    orderKey: Number(r.order_key),
    disabledData: parse((r.disabled_data as string | null) ?? null),
    description: (r.description as string | null | undefined) ?? null,
    assignee: (parse((r.assignee as string | null | undefined) ?? null) as IssueAssignee | null) ?? null,
    matchedCount: Number(r.matched_count ?? 0),
    createdAt: iso(r.created_at as Date | string),
    updatedAt: iso(r.updated_at as Date | string),
  };
}

/** A project's rules of a kind, in the order they apply (`order_key`, then creation). */
export async function listRules(db: MetaDb, teamId: number, kind: RuleKind): Promise<RuleRecord[]> {
  const rows = await db
    .selectFrom(tableOf(kind))
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('order_key')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => toRule(kind, r as unknown as Record<string, unknown>));
}

export async function getRule(
  db: MetaDb,
  teamId: number,
  kind: RuleKind,
  id: string,
): Promise<RuleRecord | undefined> {
  const row = await db
    .selectFrom(tableOf(kind))
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toRule(kind, row as unknown as Record<string, unknown>) : undefined;
}

export async function insertRule(
  db: MetaDb,
  rule: {
    id: string;
    teamId: number;
    kind: RuleKind;
    filters: unknown;
    description?: string | null | undefined;
    assignee?: IssueAssignee | null | undefined;
    now: string;
  },
): Promise<RuleRecord> {
  const common = {
    id: rule.id,
    team_id: rule.teamId,
    filters: JSON.stringify(rule.filters),
    order_key: 0,
    disabled_data: null,
    created_at: rule.now,
    updated_at: rule.now,
  };
  if (rule.kind === 'grouping') {
    await db
      .insertInto('error_tracking_grouping_rules')
      .values({
        ...common,
        description: rule.description ?? null,
        assignee: rule.assignee ? JSON.stringify(rule.assignee) : null,
      })
      .execute();
  } else {
    await db.insertInto('error_tracking_suppression_rules').values(common).execute();
  }
  return (await getRule(db, rule.teamId, rule.kind, rule.id)) as RuleRecord;
}

/** PostHog's update: given fields change and `disabled_data` is cleared. False when not found. */
export async function updateRule(
  db: MetaDb,
  teamId: number,
  kind: RuleKind,
  id: string,
  patch: { filters?: unknown; description?: string | undefined; assignee?: IssueAssignee | undefined },
  now: string,
): Promise<boolean> {
  const set: Record<string, unknown> = { updated_at: now, disabled_data: null };
  if (patch.filters !== undefined) set.filters = JSON.stringify(patch.filters);
  if (kind === 'grouping') {
    if (patch.description !== undefined) set.description = patch.description;
    if (patch.assignee !== undefined) set.assignee = JSON.stringify(patch.assignee);
  }
  const res = await db
    .updateTable(tableOf(kind))
    .set(set as never)
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function deleteRule(db: MetaDb, teamId: number, kind: RuleKind, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom(tableOf(kind))
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** PostHog's `reorder`: each named rule of the project gets its `order_key`; others are ignored. */
export async function reorderRules(
  db: MetaDb,
  teamId: number,
  kind: RuleKind,
  orders: Record<string, number>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const [id, key] of Object.entries(orders)) {
      await trx
        .updateTable(tableOf(kind))
        .set({ order_key: key })
        .where('team_id', '=', teamId)
        .where('id', '=', id)
        .execute();
    }
  });
}

/** Adds the exceptions a suppression rule dropped to its count. */
export async function countSuppressed(db: MetaDb, teamId: number, id: string, n: number): Promise<void> {
  await db
    .updateTable('error_tracking_suppression_rules')
    .set({ matched_count: sql`matched_count + ${n}` } as never)
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .execute();
}

/** The issue each grouping rule made (`custom-rule:{id}` fingerprint), by rule id. */
export async function issuesOfGroupingRules(
  db: MetaDb,
  teamId: number,
  ruleIds: string[],
): Promise<Map<string, { id: string; name: string | null }>> {
  const out = new Map<string, { id: string; name: string | null }>();
  if (ruleIds.length === 0) return out;
  const rows = await db
    .selectFrom('error_tracking_fingerprints as f')
    .innerJoin('error_tracking_issues as i', 'i.id', 'f.issue_id')
    .select(['f.fingerprint as fingerprint', 'i.id as id', 'i.name as name'])
    .where('f.team_id', '=', teamId)
    .where(
      'f.fingerprint',
      'in',
      ruleIds.map((id) => `custom-rule:${id}`),
    )
    .execute();
  for (const r of rows) out.set(r.fingerprint.slice('custom-rule:'.length), { id: r.id, name: r.name });
  return out;
}
