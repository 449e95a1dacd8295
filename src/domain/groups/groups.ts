import { and, compare, constant, type Expr, field } from '../../hogql/ast.js';
import type { MetaDb } from '../../store/meta/db.js';
import '../../store/meta/data-tables.js';
import { notFound, validationError } from '../../errors.js';
import type { ProjectAccess } from '../access.js';
import type { Deps, MetaDeps } from '../deps.js';
import { parsePropertiesParam, runResourceQuery } from '../persons/hogql.js';
import { isoDateTime, parseJsonObject } from '../query/values.js';

export interface GroupType {
  group_type: string;
  group_type_index: number;
  name_singular: string | null;
  name_plural: string | null;
}

async function groupTypeRows(db: MetaDb, teamId: number): Promise<GroupType[]> {
  const rows = await db
    .selectFrom('group_type_mappings')
    .select(['group_type', 'group_type_index', 'name_singular', 'name_plural'])
    .where('team_id', '=', teamId)
    .orderBy('group_type_index')
    .execute();
  return rows.map((r) => ({
    ...r,
    name_singular: r.name_singular ?? null,
    name_plural: r.name_plural ?? null,
  }));
}

export const listGroupTypes = (deps: MetaDeps, access: ProjectAccess) =>
  groupTypeRows(deps.meta, access.team.id);

/** PostHog's `update_metadata`: display names per group type index; unknown indexes are a 400. */
export async function updateGroupTypeMetadata(
  deps: MetaDeps,
  access: ProjectAccess,
  changes: Array<{ group_type_index: number; name_singular?: string | null; name_plural?: string | null }>,
): Promise<GroupType[]> {
  const known = new Set((await groupTypeRows(deps.meta, access.team.id)).map((g) => g.group_type_index));
  for (const c of changes) {
    if (!known.has(c.group_type_index))
      throw validationError(`Group type ${c.group_type_index} does not exist.`, 'group_type_index');
  }
  for (const c of changes) {
    await deps.meta
      .updateTable('group_type_mappings')
      .set({
        ...(c.name_singular !== undefined ? { name_singular: c.name_singular } : {}),
        ...(c.name_plural !== undefined ? { name_plural: c.name_plural } : {}),
      })
      .where('team_id', '=', access.team.id)
      .where('group_type_index', '=', c.group_type_index)
      .execute();
  }
  return groupTypeRows(deps.meta, access.team.id);
}

export interface GroupOut {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  created_at: string;
}

const toGroup = (r: unknown[]): GroupOut => ({
  group_type_index: Number(r[0]),
  group_key: String(r[1]),
  group_properties: parseJsonObject(r[2]),
  created_at: String(isoDateTime(r[3], 'UTC')),
});

function checkIndex(index: number | undefined): number {
  if (index === undefined)
    throw validationError('group_type_index is required.', 'group_type_index', 'required');
  if (!Number.isInteger(index) || index < 0 || index > 4)
    throw validationError('group_type_index must be between 0 and 4.', 'group_type_index');
  return index;
}

/** Groups of one type, newest first, with PostHog's `search` (key or name) and property filters. */
export async function listGroups(
  deps: Deps,
  access: ProjectAccess,
  q: { group_type_index?: number | undefined; search?: string | undefined; properties?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ results: GroupOut[]; hasMore: boolean }> {
  const index = checkIndex(q.group_type_index);
  const exprs: Expr[] = [compare('==', field('index'), constant(index))];
  if (q.search) {
    if (q.search.length > 1000) throw validationError('search is too long.', 'search');
    const like = constant(`%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    exprs.push({
      node: 'Or',
      exprs: [compare('ilike', field('key'), like), compare('ilike', field('properties', 'name'), like)],
    } as Expr);
  }
  const props = parsePropertiesParam(q.properties, 'persons');
  if (props) exprs.push(props);
  const rows = await runResourceQuery(
    deps,
    access.team,
    'SELECT index, key, properties, created_at FROM groups WHERE {where} ORDER BY created_at DESC, key LIMIT {limit} OFFSET {offset}',
    { values: { limit: page.limit + 1, offset: page.offset }, exprs: { where: and(...exprs) } },
  );
  return { results: rows.slice(0, page.limit).map(toGroup), hasMore: rows.length > page.limit };
}

export async function findGroup(
  deps: Deps,
  access: ProjectAccess,
  q: { group_type_index?: number | undefined; group_key?: string | undefined },
): Promise<GroupOut> {
  const index = checkIndex(q.group_type_index);
  if (!q.group_key) throw validationError('group_key is required.', 'group_key', 'required');
  const rows = await runResourceQuery(
    deps,
    access.team,
    'SELECT index, key, properties, created_at FROM groups WHERE index = {index} AND key = {key} LIMIT 1',
    { values: { index, key: q.group_key } },
  );
  if (!rows[0]) throw notFound();
  return toGroup(rows[0]);
}
