import { sql } from 'kysely';
import { bool, iso, isoOrNull } from './codec.js';
import type { MetaDb } from './db.js';
import { likePattern } from './insights.js';

export type AnnotationScope = 'dashboard_item' | 'dashboard' | 'project' | 'organization' | 'recording';

export interface AnnotationRecord {
  id: number;
  teamId: number;
  organizationId: string;
  content: string | null;
  dateMarker: string | null;
  creationType: 'USR' | 'GIT';
  scope: AnnotationScope;
  insightId: number | null;
  dashboardId: number | null;
  deleted: boolean;
  createdAt: string;
  createdBy: number | null;
  updatedAt: string;
}

export type NewAnnotation = Omit<AnnotationRecord, 'id'>;
export type AnnotationPatch = Partial<
  Pick<
    AnnotationRecord,
    | 'content'
    | 'dateMarker'
    | 'creationType'
    | 'scope'
    | 'insightId'
    | 'dashboardId'
    | 'deleted'
    | 'updatedAt'
  >
>;

type Row = {
  id: number;
  team_id: number;
  organization_id: string;
  content: string | null;
  date_marker: Date | string | null;
  creation_type: string;
  scope: string;
  insight_id: number | null;
  dashboard_id: number | null;
  deleted: boolean | number;
  created_at: Date | string;
  created_by: number | null;
  updated_at: Date | string;
};

const toAnnotation = (row: Row): AnnotationRecord => ({
  id: row.id,
  teamId: row.team_id,
  organizationId: row.organization_id,
  content: row.content,
  dateMarker: isoOrNull(row.date_marker),
  creationType: row.creation_type === 'GIT' ? 'GIT' : 'USR',
  scope: row.scope as AnnotationScope,
  insightId: row.insight_id,
  dashboardId: row.dashboard_id,
  deleted: bool(row.deleted),
  createdAt: iso(row.created_at),
  createdBy: row.created_by,
  updatedAt: iso(row.updated_at),
});

export async function insertAnnotation(db: MetaDb, a: NewAnnotation): Promise<AnnotationRecord> {
  const row = await db
    .insertInto('annotations')
    .values({
      team_id: a.teamId,
      organization_id: a.organizationId,
      content: a.content,
      date_marker: a.dateMarker,
      creation_type: a.creationType,
      scope: a.scope,
      insight_id: a.insightId,
      dashboard_id: a.dashboardId,
      deleted: a.deleted,
      created_at: a.createdAt,
      created_by: a.createdBy,
      updated_at: a.updatedAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAnnotation(row);
}

export async function updateAnnotation(
  db: MetaDb,
  id: number,
  patch: AnnotationPatch,
): Promise<AnnotationRecord | undefined> {
  const set: Record<string, unknown> = {};
  if (patch.content !== undefined) set.content = patch.content;
  if (patch.dateMarker !== undefined) set.date_marker = patch.dateMarker;
  if (patch.creationType !== undefined) set.creation_type = patch.creationType;
  if (patch.scope !== undefined) set.scope = patch.scope;
  if (patch.insightId !== undefined) set.insight_id = patch.insightId;
  if (patch.dashboardId !== undefined) set.dashboard_id = patch.dashboardId;
  if (patch.deleted !== undefined) set.deleted = patch.deleted;
  if (patch.updatedAt !== undefined) set.updated_at = patch.updatedAt;
  const row = await db
    .updateTable('annotations')
    .set(set)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toAnnotation(row);
}

/**
 * The annotations a project sees (PostHog's queryset): its own, and organization-scoped ones of any
 * project of the same organization.
 */
function visible(db: MetaDb, teamId: number, organizationId: string) {
  return db
    .selectFrom('annotations')
    .where('deleted', '=', false)
    .where((eb) =>
      eb.or([
        eb('team_id', '=', teamId),
        eb.and([eb('scope', '=', 'organization'), eb('organization_id', '=', organizationId)]),
      ]),
    );
}

export async function findVisibleAnnotation(
  db: MetaDb,
  teamId: number,
  organizationId: string,
  id: number,
): Promise<AnnotationRecord | undefined> {
  const row = await visible(db, teamId, organizationId).selectAll().where('id', '=', id).executeTakeFirst();
  return row && toAnnotation(row);
}

export interface AnnotationFilter {
  search?: string;
  scope?: AnnotationScope;
  after?: string;
  before?: string;
  insightId?: number;
  dashboardId?: number;
}

/** Newest marker first, as PostHog orders them. */
export async function listAnnotations(
  db: MetaDb,
  teamId: number,
  organizationId: string,
  filter: AnnotationFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: AnnotationRecord[] }> {
  let base = visible(db, teamId, organizationId);
  if (filter.scope) base = base.where('scope', '=', filter.scope);
  if (filter.after) base = base.where('date_marker', '>', filter.after);
  if (filter.before) base = base.where('date_marker', '<', filter.before);
  if (filter.insightId !== undefined) base = base.where('insight_id', '=', filter.insightId);
  if (filter.dashboardId !== undefined) base = base.where('dashboard_id', '=', filter.dashboardId);
  if (filter.search) {
    const p = likePattern(filter.search);
    base = base.where(sql<boolean>`lower(coalesce(content, '')) like ${p} escape '\\'`);
  }
  const [counted, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('date_marker', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(counted.n), results: rows.map(toAnnotation) };
}
