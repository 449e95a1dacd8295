import { notFound, validationError } from '../../errors.js';
import { and, compare, constant, type Expr, field } from '../../hogql/ast.js';
import type { AsyncDeletion, DeletionScope } from '../../store/meta/async-deletions.js';
import {
  deletePersonsById,
  type PersonWithIds,
  personIdsByDistinctIds,
  personsByIds,
  setPersonProperties,
} from '../../store/meta/person-admin.js';
import type { ProjectAccess } from '../access.js';
import { queuePersonDeletion } from '../data-lifecycle/person-deletions.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../ids.js';
import { chTime } from '../ingest/rows.js';
import { parsePropertiesParam, runResourceQuery } from './hogql.js';

export interface PersonListFilter {
  search?: string | undefined;
  distinct_id?: string | undefined;
  email?: string | undefined;
  properties?: string | undefined;
  uuid?: string | undefined;
  cohort?: number | undefined;
}

const MAX_TEXT = 1000;

function text(value: string | undefined, attr: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_TEXT)
    throw validationError(`Ensure this field has no more than ${MAX_TEXT} characters.`, attr);
  return value;
}

/** The persons list's WHERE: every filter PostHog's persons endpoint takes, as HogQL AST. */
function personFilters(f: PersonListFilter): { where: Expr; values: Record<string, unknown> } {
  const exprs: Expr[] = [];
  const values: Record<string, unknown> = {};
  const byDistinctId = (value: string) =>
    compare('in', field('id'), {
      node: 'SelectQuery',
      select: [field('person_id')],
      select_from: { node: 'JoinExpr', table: field('person_distinct_ids') },
      where: compare('==', field('distinct_id'), constant(value)),
    } as unknown as Expr);
  const distinctId = text(f.distinct_id, 'distinct_id');
  if (distinctId !== undefined) {
    exprs.push(byDistinctId(distinctId));
  }
  const email = text(f.email, 'email');
  if (email !== undefined) {
    exprs.push(compare('==', field('properties', 'email'), constant(email)));
  }
  const search = text(f.search, 'search');
  if (search !== undefined) {
    // PostHog: email or name contains the text, or it is one of the person's distinct ids or its uuid.
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const like = (key: string) => compare('ilike', field('properties', key), constant(pattern));
    exprs.push({
      node: 'Or',
      exprs: [
        like('email'),
        like('name'),
        byDistinctId(search),
        compare('==', { node: 'Call', name: 'toString', args: [field('id')] }, constant(search)),
      ],
    } as Expr);
  }
  const uuid = text(f.uuid, 'uuid');
  if (uuid !== undefined) {
    const ids = uuid.split(',').filter((u) => isUuid(u));
    const list = ids.length ? ids : ['00000000-0000-0000-0000-000000000000'];
    exprs.push(
      compare('in', { node: 'Call', name: 'toString', args: [field('id')] }, {
        node: 'Array',
        exprs: list.map((u) => constant(u)),
      } as Expr),
    );
  }
  if (f.cohort !== undefined) exprs.push(compare('in cohort', field('id'), constant(f.cohort)));
  const props = parsePropertiesParam(f.properties, 'persons');
  if (props) exprs.push(props);
  return { where: exprs.length ? and(...exprs) : constant(true), values };
}

/**
 * Persons of the project, newest first, through HogQL (the `persons` table: latest version, not
 * deleted); the page's records then come from the metadata store, the source of truth.
 */
export async function listPersons(
  deps: Deps,
  access: ProjectAccess,
  filter: PersonListFilter,
  page: { limit: number; offset: number },
): Promise<{ results: PersonWithIds[]; hasMore: boolean }> {
  const { where, values } = personFilters(filter);
  const rows = await runResourceQuery(
    deps,
    access.team,
    'SELECT id FROM persons WHERE {where} ORDER BY created_at DESC, id DESC LIMIT {limit} OFFSET {offset}',
    { values: { ...values, limit: page.limit + 1, offset: page.offset }, exprs: { where } },
  );
  const ids = rows.slice(0, page.limit).map((r) => String(r[0]));
  const found = await personsByIds(deps.meta, access.team.id, ids);
  return {
    results: ids.map((id) => found.get(id)).filter((p): p is PersonWithIds => !!p),
    hasMore: rows.length > page.limit,
  };
}

export async function getPerson(deps: Deps, access: ProjectAccess, id: string): Promise<PersonWithIds> {
  if (!isUuid(id)) throw notFound();
  const person = (await personsByIds(deps.meta, access.team.id, [id])).get(id);
  if (!person) throw notFound();
  return person;
}

/** The analytics store's copy of a person (a new version of its row). */
async function mirror(deps: Deps, person: PersonWithIds, isDeleted = false): Promise<void> {
  await deps.events.insert('person', [
    {
      id: person.id,
      team_id: person.teamId,
      properties: JSON.stringify(person.properties),
      is_identified: person.isIdentified ? 1 : 0,
      created_at: chTime(person.createdAt),
      version: person.version,
      is_deleted: isDeleted ? 1 : 0,
    },
  ]);
}

const MAX_PROPERTIES_BYTES = 1_000_000;

/** Changes a person's properties with `change`, retrying if ingestion wrote the person meanwhile. */
export async function changeProperties(
  deps: Deps,
  access: ProjectAccess,
  id: string,
  change: (properties: Record<string, unknown>) => Record<string, unknown>,
): Promise<PersonWithIds> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const person = await getPerson(deps, access, id);
    const properties = change({ ...person.properties });
    if (JSON.stringify(properties).length > MAX_PROPERTIES_BYTES)
      throw validationError('Person properties are too large.', 'properties');
    if (await setPersonProperties(deps.meta, person, properties)) {
      const updated = { ...person, properties, version: person.version + 1 };
      await mirror(deps, updated);
      return updated;
    }
  }
  throw validationError('The person changed while it was being updated; try again.');
}

/**
 * Deletes persons from both stores: metadata rows (person and distinct ids) first, then the
 * analytics rows (lightweight deletes, applied at once for readers; parts are rewritten in the
 * background). Their events, sessions and recordings (`deleteEvents`) are queued for the
 * background worker (data-lifecycle/person-deletions.ts), as PostHog queues an AsyncDeletion. A
 * later event with one of the distinct ids makes a new person, since nothing maps it any more.
 */
export async function deletePersons(
  deps: Deps,
  access: ProjectAccess,
  persons: PersonWithIds[],
  options: { deleteEvents: boolean },
): Promise<{ distinctIds: string[]; deletion: AsyncDeletion | null }> {
  if (persons.length === 0) return { distinctIds: [], deletion: null };
  const teamId = access.team.id;
  const ids = persons.map((p) => p.id);
  const distinctIds = persons.flatMap((p) => p.distinctIds);
  // Queued first: once the metadata rows are gone nothing else remembers whose events these are.
  const deletion = options.deleteEvents
    ? await queuePersonDeletion(deps, {
        teamId,
        scope: 'events',
        personIds: ids,
        distinctIds,
        userId: access.membership.userId,
      })
    : null;
  await deletePersonsById(deps.meta, teamId, ids);
  const params = { team: teamId, ids, dids: distinctIds };
  await deps.events.command(
    `DELETE FROM ${deps.events.table('person')} WHERE team_id = {team:Int64} AND id IN {ids:Array(UUID)}`,
    { params },
  );
  if (distinctIds.length) {
    await deps.events.command(
      `DELETE FROM ${deps.events.table('person_distinct_id2')} WHERE team_id = {team:Int64} AND distinct_id IN {dids:Array(String)}`,
      { params },
    );
  }
  await deps.events.command(
    `DELETE FROM ${deps.events.table('cohort_people')} WHERE team_id = {team:Int64} AND person_id IN {ids:Array(UUID)}`,
    { params },
  );
  return { distinctIds, deletion };
}

/** PostHog's `delete_events` / `delete_recordings` actions: the person stays, its data is queued. */
export async function queuePersonDataDeletion(
  deps: Deps,
  access: ProjectAccess,
  person: PersonWithIds,
  scope: DeletionScope,
): Promise<AsyncDeletion> {
  return queuePersonDeletion(deps, {
    teamId: access.team.id,
    scope,
    personIds: [person.id],
    distinctIds: person.distinctIds,
    userId: access.membership.userId,
  });
}

export const MAX_BULK_DELETE = 1000;

/** Persons named by uuid and/or distinct id (unknown ones are skipped, as PostHog does). */
export async function personsForBulkDelete(
  deps: Deps,
  access: ProjectAccess,
  body: { ids?: string[] | undefined; distinct_ids?: string[] | undefined },
): Promise<PersonWithIds[]> {
  const ids = body.ids ?? [];
  const dids = body.distinct_ids ?? [];
  if (ids.length === 0 && dids.length === 0)
    throw validationError('You must provide either ids or distinct_ids.', null);
  if (ids.length > MAX_BULK_DELETE || dids.length > MAX_BULK_DELETE)
    throw validationError(`You can only pass ${MAX_BULK_DELETE} ids or distinct_ids at a time.`);
  const all = new Set(ids.filter(isUuid));
  for (const id of await personIdsByDistinctIds(deps.meta, access.team.id, dids)) all.add(id);
  return [...(await personsByIds(deps.meta, access.team.id, [...all])).values()];
}

/** Values of a person property with how many persons have each (PostHog's `values/`). */
export async function personPropertyValues(
  deps: Deps,
  access: ProjectAccess,
  key: string,
  value: string | undefined,
): Promise<Array<{ name: unknown; count: number }>> {
  const exprs: Expr[] = [compare('!=', field('properties', key), constant(null))];
  const values: Record<string, unknown> = {};
  if (value) {
    const like = `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    exprs.push(
      compare('ilike', { node: 'Call', name: 'toString', args: [field('properties', key)] }, constant(like)),
    );
  }
  const rows = await runResourceQuery(
    deps,
    access.team,
    'SELECT v, count() AS c FROM (SELECT {prop} AS v FROM persons WHERE {where}) GROUP BY v ORDER BY c DESC, v LIMIT 100',
    { values, exprs: { where: and(...exprs), prop: field('properties', key) } },
  );
  return rows.map((r) => ({ name: r[0], count: Number(r[1]) }));
}

/** PostHog's display name: the email, else the first non-anonymous distinct id, else the id. */
export function personName(p: PersonWithIds): string {
  const email = p.properties.email;
  if (typeof email === 'string' && email) return email;
  const ids = sortedDistinctIds(p.distinctIds);
  return ids[0] ?? p.id;
}

/** Identified-looking distinct ids first (PostHog's `is_anonymous_id`: uuid-shaped ids last). */
export function sortedDistinctIds(ids: string[]): string[] {
  const anon = (d: string) => (/^[0-9a-f-]{36}$/i.test(d) || /^[0-9a-f]{14}-[0-9a-f]{14}-/i.test(d) ? 1 : 0);
  return [...ids].sort((a, b) => anon(a) - anon(b));
}
