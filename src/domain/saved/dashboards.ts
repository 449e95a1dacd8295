import { notFound, validationError } from '../../errors.js';
import {
  type DashboardPatch,
  type DashboardRecord,
  findDashboard,
  insertDashboard,
  insertTile,
  listDashboards,
  type TilePatch,
  type TileRecord,
  tilesOf,
  updateDashboard,
  updateTile,
} from '../../store/meta/dashboards.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import type { Principal } from '../principal.js';
import { checkDashboardFilter } from '../query/prepare.js';
import { boolField, jsonDepth, jsonSize, optionalText, tagify } from './fields.js';

/** Writable fields of PostHog's DashboardSerializer that Burrow keeps. */
export interface DashboardInput {
  name?: unknown;
  description?: unknown;
  pinned?: unknown;
  tags?: unknown;
  filters?: unknown;
  variables?: unknown;
  deleted?: unknown;
  tiles?: unknown;
}

const MAX_NAME = 400;
const MAX_DESCRIPTION = 10_000;
const MAX_TILES_PATCH = 200;
const MAX_TEXT = 4000;
const MAX_LAYOUTS_JSON = 10_000;
const MAX_FILTERS_JSON = 50_000;

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

function checkFilters(raw: unknown): Record<string, unknown> {
  if (raw === null) return {};
  checkDashboardFilter(raw, 'filters');
  jsonSize(raw, 'filters', MAX_FILTERS_JSON);
  jsonDepth(raw, 'filters');
  return raw as Record<string, unknown>;
}

function checkVariables(raw: unknown): Record<string, unknown> | null {
  if (raw === null) return null;
  if (!isObject(raw)) throw validationError('Must be an object.', 'variables');
  jsonSize(raw, 'variables', MAX_FILTERS_JSON);
  jsonDepth(raw, 'variables');
  return raw;
}

function checkInput(input: DashboardInput): DashboardPatch {
  const patch: DashboardPatch = {};
  if (input.name !== undefined) patch.name = optionalText(input.name, 'name', MAX_NAME);
  if (input.description !== undefined)
    patch.description = optionalText(input.description, 'description', MAX_DESCRIPTION) ?? '';
  if (input.pinned !== undefined) patch.pinned = boolField(input.pinned, 'pinned');
  if (input.tags !== undefined) patch.tags = tagify(input.tags ?? []);
  if (input.filters !== undefined) patch.filters = checkFilters(input.filters);
  if (input.variables !== undefined) patch.variables = checkVariables(input.variables);
  if (input.deleted !== undefined) patch.deleted = boolField(input.deleted, 'deleted');
  return patch;
}

export async function createDashboard(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  input: DashboardInput,
): Promise<DashboardRecord> {
  if (input.tiles !== undefined) throw validationError('Tiles are added by PATCH or from insights.', 'tiles');
  const patch = checkInput(input);
  return insertDashboard(deps.meta, {
    teamId: access.team.id,
    name: patch.name ?? null,
    description: patch.description ?? '',
    pinned: patch.pinned ?? false,
    tags: patch.tags ?? [],
    filters: patch.filters ?? {},
    variables: patch.variables ?? null,
    deleted: patch.deleted ?? false,
    createdAt: deps.now().toISOString(),
    createdBy: principal.user.id,
    lastAccessedAt: null,
  });
}

/** Another project's dashboard is a 404, as an unknown one; deleted ones are found (PATCH restores). */
export async function getDashboard(deps: Deps, access: ProjectAccess, id: number): Promise<DashboardRecord> {
  const d = await findDashboard(deps.meta, access.team.id, id);
  if (!d) throw notFound();
  return d;
}

interface TileChange {
  id: number | null;
  patch: TilePatch;
  text: string | null;
}

/**
 * PATCH `tiles`: each entry with an `id` changes that tile of this dashboard (layouts, color,
 * text body, `deleted`); an entry without one but with `text` adds a text tile.
 */
function checkTiles(raw: unknown, tiles: TileRecord[], at: string): TileChange[] {
  if (!Array.isArray(raw)) throw validationError('Expected a list of items.', 'tiles', 'not_a_list');
  if (raw.length > MAX_TILES_PATCH)
    throw validationError(`Ensure this field has no more than ${MAX_TILES_PATCH} elements.`, 'tiles');
  return raw.map((entry, i) => {
    const attr = (f: string) => `tiles__${i}__${f}`;
    if (!isObject(entry)) throw validationError('Expected a dictionary of items.', `tiles__${i}`, 'invalid');
    const patch: TilePatch = {};
    if (entry.layouts !== undefined) {
      if (!isObject(entry.layouts)) throw validationError('Must be an object.', attr('layouts'));
      jsonSize(entry.layouts, attr('layouts'), MAX_LAYOUTS_JSON);
      jsonDepth(entry.layouts, attr('layouts'), 8);
      patch.layouts = entry.layouts;
    }
    if (entry.color !== undefined) patch.color = optionalText(entry.color, attr('color'), 400);
    if (entry.deleted !== undefined) patch.deleted = boolField(entry.deleted, attr('deleted'));
    let text: string | null = null;
    if (entry.text !== undefined && entry.text !== null) {
      if (!isObject(entry.text) || typeof entry.text.body !== 'string')
        throw validationError('A text tile needs `text: {body}`.', attr('text'));
      text = optionalText(entry.text.body, attr('text'), MAX_TEXT);
    }
    if (entry.id === undefined || entry.id === null) {
      if (text === null)
        throw validationError(
          'A new tile needs `text: {body}` (insights are added from the insight).',
          attr('id'),
        );
      return { id: null, patch, text };
    }
    const tile = tiles.find((t) => t.id === entry.id);
    if (!tile) throw validationError(`Invalid pk "${String(entry.id)}" - object does not exist.`, attr('id'));
    if (text !== null) {
      if (tile.insightId !== null) throw validationError('An insight tile has no text.', attr('text'));
      patch.textBody = text;
      patch.textLastModifiedAt = at;
    }
    return { id: tile.id, patch, text: null };
  });
}

export async function changeDashboard(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  id: number,
  input: DashboardInput,
): Promise<DashboardRecord> {
  const current = await getDashboard(deps, access, id);
  const patch = checkInput(input);
  const at = deps.now().toISOString();
  const changes =
    input.tiles === undefined ? [] : checkTiles(input.tiles, await tilesOf(deps.meta, [id]), at);
  const updated = await updateDashboard(deps.meta, access.team.id, id, patch);
  if (!updated) throw notFound();
  for (const change of changes) {
    if (change.id !== null) await updateTile(deps.meta, current.id, change.id, change.patch);
    else
      await insertTile(deps.meta, {
        dashboardId: current.id,
        insightId: null,
        textBody: change.text,
        textCreatedBy: principal.user.id,
        textLastModifiedAt: at,
        layouts: change.patch.layouts ?? {},
        color: change.patch.color ?? null,
        createdAt: at,
      });
  }
  return updated;
}

export async function deleteDashboard(deps: Deps, access: ProjectAccess, id: number): Promise<void> {
  await getDashboard(deps, access, id);
  await updateDashboard(deps.meta, access.team.id, id, { deleted: true });
}

export function listProjectDashboards(
  deps: Deps,
  access: ProjectAccess,
  filter: { search?: string; pinned?: boolean },
  page: { limit: number; offset: number },
) {
  return listDashboards(deps.meta, access.team.id, filter, page);
}

/** A dashboard that is not deleted (an insight opened `from_dashboard`); else a 404. */
export async function getLiveDashboard(
  deps: Deps,
  access: ProjectAccess,
  id: number,
): Promise<DashboardRecord> {
  const d = await findDashboard(deps.meta, access.team.id, id);
  if (!d || d.deleted) throw notFound();
  return d;
}
