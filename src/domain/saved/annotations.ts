import { notFound, validationError } from '../../errors.js';
import {
  type AnnotationFilter,
  type AnnotationPatch,
  type AnnotationRecord,
  type AnnotationScope,
  findVisibleAnnotation,
  insertAnnotation,
  listAnnotations,
  updateAnnotation,
} from '../../store/meta/annotations.js';
import { findDashboard } from '../../store/meta/dashboards.js';
import { findInsight, findInsights } from '../../store/meta/insights.js';
import type { ProjectAccess } from '../access.js';
import { usersById } from '../accounts/users.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { boolField, MAX_ID, optionalText } from './fields.js';

export const ANNOTATION_SCOPES: AnnotationScope[] = [
  'dashboard_item',
  'dashboard',
  'project',
  'organization',
  'recording',
];

/** Writable fields of PostHog's AnnotationSerializer. */
export interface AnnotationInput {
  content?: unknown;
  date_marker?: unknown;
  creation_type?: unknown;
  scope?: unknown;
  dashboard_item?: unknown;
  dashboard_id?: unknown;
  deleted?: unknown;
}

const MAX_CONTENT = 8192;

function dateMarker(raw: unknown): string | null {
  if (raw === null) return null;
  const t = typeof raw === 'string' && raw.length <= 64 ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(t))
    throw validationError(
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
      'date_marker',
      'invalid',
    );
  return new Date(t).toISOString();
}

function idField(raw: unknown, attr: string): number | null {
  if (raw === null) return null;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_ID)
    throw validationError('Incorrect type. Expected pk value.', attr, 'incorrect_type');
  return raw;
}

async function checkInput(
  deps: Deps,
  access: ProjectAccess,
  input: AnnotationInput,
): Promise<AnnotationPatch> {
  const patch: AnnotationPatch = {};
  if (input.content !== undefined) patch.content = optionalText(input.content, 'content', MAX_CONTENT);
  if (input.date_marker !== undefined) patch.dateMarker = dateMarker(input.date_marker);
  if (input.creation_type !== undefined) {
    if (input.creation_type !== 'USR' && input.creation_type !== 'GIT')
      throw validationError(
        `"${String(input.creation_type)}" is not a valid choice.`,
        'creation_type',
        'invalid_choice',
      );
    patch.creationType = input.creation_type;
  }
  if (input.scope !== undefined) {
    if (!ANNOTATION_SCOPES.includes(input.scope as AnnotationScope))
      throw validationError(`"${String(input.scope)}" is not a valid choice.`, 'scope', 'invalid_choice');
    patch.scope = input.scope as AnnotationScope;
  }
  if (input.dashboard_item !== undefined) {
    patch.insightId = idField(input.dashboard_item, 'dashboard_item');
    // Another project's insight is as unknown as a missing one.
    if (patch.insightId !== null && !(await findInsight(deps.meta, access.team.id, patch.insightId)))
      throw validationError(
        `Invalid pk "${patch.insightId}" - object does not exist.`,
        'dashboard_item',
        'does_not_exist',
      );
  }
  if (input.dashboard_id !== undefined) {
    patch.dashboardId = idField(input.dashboard_id, 'dashboard_id');
    if (patch.dashboardId !== null && !(await findDashboard(deps.meta, access.team.id, patch.dashboardId)))
      throw validationError(
        `Invalid pk "${patch.dashboardId}" - object does not exist.`,
        'dashboard_id',
        'does_not_exist',
      );
  }
  if (input.deleted !== undefined) patch.deleted = boolField(input.deleted, 'deleted');
  return patch;
}

/** A scope that names an object needs that object. */
function checkScope(a: Pick<AnnotationRecord, 'scope' | 'insightId' | 'dashboardId'>): void {
  if (a.scope === 'dashboard_item' && a.insightId === null)
    throw validationError(
      'An annotation scoped to an insight needs `dashboard_item`.',
      'dashboard_item',
      'required',
    );
  if (a.scope === 'dashboard' && a.dashboardId === null)
    throw validationError(
      'An annotation scoped to a dashboard needs `dashboard_id`.',
      'dashboard_id',
      'required',
    );
}

export async function createAnnotation(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  input: AnnotationInput,
): Promise<AnnotationRecord> {
  const patch = await checkInput(deps, access, input);
  const at = deps.now().toISOString();
  const record = {
    teamId: access.team.id,
    organizationId: access.team.organizationId,
    content: patch.content ?? null,
    dateMarker: patch.dateMarker ?? null,
    creationType: patch.creationType ?? 'USR',
    scope: patch.scope ?? (patch.insightId ? 'dashboard_item' : 'project'),
    insightId: patch.insightId ?? null,
    dashboardId: patch.dashboardId ?? null,
    deleted: patch.deleted ?? false,
    createdAt: at,
    createdBy: principal.user.id,
    updatedAt: at,
  } satisfies Omit<AnnotationRecord, 'id'>;
  checkScope(record);
  return insertAnnotation(deps.meta, record);
}

/** A project sees its annotations and its organization's organization-wide ones; others are 404s. */
export async function getAnnotation(
  deps: Deps,
  access: ProjectAccess,
  id: number,
): Promise<AnnotationRecord> {
  const a = await findVisibleAnnotation(deps.meta, access.team.id, access.team.organizationId, id);
  if (!a) throw notFound();
  return a;
}

export async function changeAnnotation(
  deps: Deps,
  access: ProjectAccess,
  id: number,
  input: AnnotationInput,
): Promise<AnnotationRecord> {
  const current = await getAnnotation(deps, access, id);
  const patch = await checkInput(deps, access, input);
  checkScope({ ...current, ...patch });
  const updated = await updateAnnotation(deps.meta, id, { ...patch, updatedAt: deps.now().toISOString() });
  if (!updated) throw notFound();
  return updated;
}

export async function deleteAnnotation(deps: Deps, access: ProjectAccess, id: number): Promise<void> {
  await getAnnotation(deps, access, id);
  await updateAnnotation(deps.meta, id, { deleted: true, updatedAt: deps.now().toISOString() });
}

export function listProjectAnnotations(
  deps: Deps,
  access: ProjectAccess,
  filter: AnnotationFilter,
  page: { limit: number; offset: number },
) {
  return listAnnotations(deps.meta, access.team.id, access.team.organizationId, filter, page);
}

/** A date bound of the list filters (`after`, `before`, `date_from`, `date_to`). */
export function dateParam(raw: string | undefined, attr: string): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const t = Date.parse(raw);
  if (Number.isNaN(t)) throw validationError('Enter a valid date/time.', attr, 'invalid');
  return new Date(t).toISOString();
}

/** What annotations' responses name besides the records: creators, insights, dashboard names. */
export async function annotationTargets(deps: Deps, teamId: number, items: AnnotationRecord[]) {
  const [users, insights] = await Promise.all([
    usersById(
      deps,
      items.map((a) => a.createdBy),
    ),
    findInsights(
      deps.meta,
      teamId,
      items.flatMap((a) => (a.insightId === null ? [] : [a.insightId])),
    ),
  ]);
  const dashboardNames = new Map<number, string | null>();
  for (const a of items)
    if (a.dashboardId !== null && !dashboardNames.has(a.dashboardId))
      dashboardNames.set(
        a.dashboardId,
        (await findDashboard(deps.meta, a.teamId, a.dashboardId))?.name ?? null,
      );
  return { users, insights, dashboardNames };
}
