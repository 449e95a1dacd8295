import { ApiError, notFound, validationError } from '../../errors.js';
import {
  findDashboards,
  insertTile,
  tileOfInsightOn,
  tilesOfInsights,
  updateTile,
} from '../../store/meta/dashboards.js';
import {
  findInsight,
  type InsightListFilter,
  type InsightPatch,
  type InsightRecord,
  insertInsight,
  listInsights,
  updateInsight,
} from '../../store/meta/insights.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { boolField, newShortId, optionalText, tagify } from './fields.js';
import { checkInsightQuery } from './query-wrap.js';

/** Writable fields of PostHog's InsightSerializer that Burrow keeps. */
export interface InsightInput {
  name?: unknown;
  derived_name?: unknown;
  description?: unknown;
  query?: unknown;
  filters?: unknown;
  tags?: unknown;
  favorited?: unknown;
  saved?: unknown;
  deleted?: unknown;
  dashboards?: unknown;
}

const MAX_NAME = 400;
const MAX_DESCRIPTION = 10_000;
const MAX_DASHBOARDS = 100;

/** Legacy `filters` insights are not supported: an empty object is accepted (clients send `{}`). */
function checkLegacyFilters(filters: unknown): void {
  if (filters === undefined || filters === null) return;
  if (typeof filters === 'object' && !Array.isArray(filters) && Object.keys(filters).length === 0) return;
  throw validationError('Legacy `filters` insights are not supported: send a `query` instead.', 'filters');
}

function dashboardIds(raw: unknown): number[] {
  if (!Array.isArray(raw)) throw validationError('Expected a list of items.', 'dashboards', 'not_a_list');
  if (raw.length > MAX_DASHBOARDS)
    throw validationError(`Ensure this field has no more than ${MAX_DASHBOARDS} elements.`, 'dashboards');
  return [
    ...new Set(
      raw.map((v) => {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 2_147_483_647)
          throw validationError('Incorrect type. Expected pk value.', 'dashboards', 'incorrect_type');
        return v;
      }),
    ),
  ];
}

/** The insight's tiles become exactly `ids`: new dashboards get a tile, others lose theirs. */
async function setDashboards(deps: Deps, teamId: number, insightId: number, ids: number[]): Promise<void> {
  const found = await findDashboards(deps.meta, teamId, ids);
  for (const id of ids) {
    const d = found.find((x) => x.id === id);
    // Another project's dashboard is as unknown as a missing one.
    if (!d || d.deleted)
      throw validationError(`Invalid pk "${id}" - object does not exist.`, 'dashboards', 'does_not_exist');
  }
  const current = await tilesOfInsights(deps.meta, [insightId]);
  for (const tile of current)
    if (!ids.includes(tile.dashboardId))
      await updateTile(deps.meta, tile.dashboardId, tile.id, { deleted: true });
  const at = deps.now().toISOString();
  for (const id of ids) {
    if (current.some((t) => t.dashboardId === id)) continue;
    const old = await tileOfInsightOn(deps.meta, id, insightId);
    if (old) await updateTile(deps.meta, id, old.id, { deleted: false });
    else
      await insertTile(deps.meta, {
        dashboardId: id,
        insightId,
        textBody: null,
        textCreatedBy: null,
        textLastModifiedAt: null,
        layouts: {},
        color: null,
        createdAt: at,
      });
  }
}

async function checkInput(deps: Deps, teamId: number, input: InsightInput): Promise<InsightPatch> {
  const patch: InsightPatch = {};
  checkLegacyFilters(input.filters);
  if (input.name !== undefined) patch.name = optionalText(input.name, 'name', MAX_NAME);
  if (input.derived_name !== undefined)
    patch.derivedName = optionalText(input.derived_name, 'derived_name', MAX_NAME);
  if (input.description !== undefined)
    patch.description = optionalText(input.description, 'description', MAX_DESCRIPTION) ?? '';
  if (input.query !== undefined)
    patch.query = input.query === null ? null : await checkInsightQuery(deps, teamId, input.query);
  if (input.tags !== undefined) patch.tags = tagify(input.tags ?? []);
  if (input.favorited !== undefined) patch.favorited = boolField(input.favorited, 'favorited');
  if (input.saved !== undefined) patch.saved = boolField(input.saved, 'saved');
  if (input.deleted !== undefined) patch.deleted = boolField(input.deleted, 'deleted');
  return patch;
}

export async function createInsight(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  input: InsightInput,
): Promise<InsightRecord> {
  const teamId = access.team.id;
  const patch = await checkInput(deps, teamId, input);
  const dashboards = input.dashboards === undefined ? null : dashboardIds(input.dashboards);
  const at = deps.now().toISOString();
  let created: InsightRecord | undefined;
  // A clash of random short ids is unlikely; retry a few times rather than fail.
  for (let attempt = 0; attempt < 5 && !created; attempt++) {
    try {
      created = await insertInsight(deps.meta, {
        teamId,
        shortId: newShortId(),
        name: patch.name ?? null,
        derivedName: patch.derivedName ?? null,
        description: patch.description ?? '',
        query: patch.query ?? null,
        tags: patch.tags ?? [],
        favorited: patch.favorited ?? false,
        // PostHog's model default: `saved` is what its UI sets when a user saves an insight.
        saved: patch.saved ?? false,
        deleted: patch.deleted ?? false,
        createdAt: at,
        createdBy: principal.user.id,
        updatedAt: at,
        lastModifiedAt: at,
        lastModifiedBy: principal.user.id,
      });
    } catch (err) {
      if (attempt === 4 || !/unique|duplicate/i.test(String((err as Error).message))) throw err;
    }
  }
  if (!created) throw new ApiError(500, 'server_error', 'error', 'Could not allocate a short id.');
  if (dashboards) await setDashboards(deps, teamId, created.id, dashboards);
  return created;
}

/** Another project's insight is a 404, as an unknown one; deleted ones are found (PATCH restores). */
export async function getInsight(deps: Deps, access: ProjectAccess, id: number): Promise<InsightRecord> {
  const insight = await findInsight(deps.meta, access.team.id, id);
  if (!insight) throw notFound();
  return insight;
}

export async function changeInsight(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  id: number,
  input: InsightInput,
): Promise<InsightRecord> {
  const teamId = access.team.id;
  await getInsight(deps, access, id);
  const patch = await checkInput(deps, teamId, input);
  const dashboards = input.dashboards === undefined ? null : dashboardIds(input.dashboards);
  const at = deps.now().toISOString();
  patch.updatedAt = at;
  // Only a change of what the insight is moves its modification stamp (PostHog's rule).
  if (patch.name !== undefined || patch.description !== undefined || patch.query !== undefined) {
    patch.lastModifiedAt = at;
    patch.lastModifiedBy = principal.user.id;
  }
  const updated = await updateInsight(deps.meta, teamId, id, patch);
  if (!updated) throw notFound();
  if (dashboards) await setDashboards(deps, teamId, id, dashboards);
  return updated;
}

export async function deleteInsight(deps: Deps, access: ProjectAccess, id: number): Promise<void> {
  await getInsight(deps, access, id);
  await updateInsight(deps.meta, access.team.id, id, { deleted: true, updatedAt: deps.now().toISOString() });
}

export function listProjectInsights(
  deps: Deps,
  access: ProjectAccess,
  filter: InsightListFilter,
  page: { limit: number; offset: number },
) {
  return listInsights(deps.meta, access.team.id, filter, page);
}
