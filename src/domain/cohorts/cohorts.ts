import { ApiError, notFound, validationError } from '../../errors.js';
import {
  type CohortRecord,
  failCalculation,
  findCohort,
  finishCalculation,
  insertCohort,
  listCohorts,
  setStaticCount,
  staleCohorts,
  startCalculation,
  updateCohort,
} from '../../store/meta/cohorts.js';
import { personIdsByDistinctIds, personsByIds } from '../../store/meta/person-admin.js';
import { findTeam, type TeamRecord } from '../../store/meta/teams.js';
import type { ProjectAccess } from '../access.js';
import { forgetTypedContext } from '../definitions/typed-context.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../ids.js';
import { runResourceQuery } from '../persons/hogql.js';
import type { Principal } from '../principal.js';
import { checkFilterRegexes } from '../regex/check.js';
import { cohortCondition, personPropertyFilters } from './criteria.js';
import { checkCohortReferences, cohortIdsIn } from './references.js';

export interface CohortInput {
  name?: string | null | undefined;
  description?: string | undefined;
  filters?: unknown;
  groups?: unknown[] | undefined;
  is_static?: boolean | undefined;
  deleted?: boolean | undefined;
}

/** Members are read and written in pages of this many (the compiler's cap on one SELECT). */
const PAGE = 50_000;
/** A static cohort takes at most this many persons per request (ids, distinct ids or CSV rows). */
export const MAX_STATIC_ADD = 10_000;

const cohortIdOf = (raw: string): number => {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound();
  return Number(raw);
};

export async function getCohort(deps: Deps, access: ProjectAccess, rawId: string): Promise<CohortRecord> {
  const cohort = await findCohort(deps.meta, access.team.id, cohortIdOf(rawId));
  if (!cohort) throw notFound();
  return cohort;
}

export const cohortList = (
  deps: Deps,
  access: ProjectAccess,
  page: { limit: number; offset: number },
  search?: string,
) => listCohorts(deps.meta, access.team.id, page, search);

/**
 * Checks a dynamic cohort's criteria compile, their patterns are RE2's and the cohorts they name
 * are this project's (a 400 now, not an error at calculation or flag evaluation time).
 */
async function checkCriteria(
  deps: Deps,
  teamId: number,
  input: { filters?: unknown; groups?: unknown[] | undefined },
  selfId?: number,
): Promise<void> {
  if (JSON.stringify(input.filters ?? null).length + JSON.stringify(input.groups ?? []).length > 100_000)
    throw validationError('Cohort filters are too large.', 'filters');
  cohortCondition(input.filters, input.groups ?? []);
  const properties = (input.filters as { properties?: unknown } | null | undefined)?.properties;
  const legacy = (input.groups ?? []).map((g) => (g as { properties?: unknown } | null)?.properties);
  checkFilterRegexes(properties, 'filters');
  checkFilterRegexes(legacy, 'groups');
  await checkCohortReferences(deps, teamId, cohortIdsIn(properties), 'filters', selfId);
  await checkCohortReferences(deps, teamId, cohortIdsIn(legacy), 'groups', selfId);
}

export async function createCohort(
  deps: Deps,
  access: ProjectAccess,
  principal: Principal,
  input: CohortInput,
  onChanged: (teamId: number, id: number) => void,
): Promise<CohortRecord> {
  const isStatic = input.is_static === true;
  if (!isStatic) await checkCriteria(deps, access.team.id, input);
  const id = await insertCohort(deps.meta, {
    teamId: access.team.id,
    name: input.name ?? null,
    description: input.description ?? '',
    filters: input.filters ?? null,
    groups: input.groups ?? [],
    isStatic,
    createdBy: principal.user.id,
    createdAt: deps.now().toISOString(),
  });
  forgetTypedContext(deps, access.team.id);
  // A static cohort has nothing to calculate: asking would only record a failed calculation.
  if (!isStatic) onChanged(access.team.id, id);
  return (await findCohort(deps.meta, access.team.id, id)) as CohortRecord;
}

export async function changeCohort(
  deps: Deps,
  access: ProjectAccess,
  rawId: string,
  input: CohortInput,
  onChanged: (teamId: number, id: number) => void,
): Promise<CohortRecord> {
  const cohort = await getCohort(deps, access, rawId);
  if (input.is_static !== undefined && input.is_static !== cohort.isStatic)
    throw validationError('A cohort cannot change between static and dynamic.', 'is_static');
  const criteriaChanged = input.filters !== undefined || input.groups !== undefined;
  if (criteriaChanged && !cohort.isStatic)
    await checkCriteria(
      deps,
      access.team.id,
      { filters: input.filters ?? cohort.filters, groups: input.groups ?? cohort.groups },
      cohort.id,
    );
  await updateCohort(deps.meta, cohort.id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.filters !== undefined ? { filters: input.filters } : {}),
    ...(input.groups !== undefined ? { groups: input.groups } : {}),
    ...(input.deleted !== undefined ? { deleted: input.deleted } : {}),
  });
  forgetTypedContext(deps, access.team.id);
  if (criteriaChanged && !cohort.isStatic) onChanged(access.team.id, cohort.id);
  return (await findCohort(deps.meta, access.team.id, cohort.id)) as CohortRecord;
}

async function insertMembers(deps: Deps, teamId: number, cohortId: number, version: number, ids: string[]) {
  for (let i = 0; i < ids.length; i += PAGE) {
    await deps.events.insert(
      'cohort_people',
      ids
        .slice(i, i + PAGE)
        .map((person_id) => ({ team_id: teamId, cohort_id: cohortId, person_id, version })),
    );
  }
}

async function memberCount(deps: Deps, team: TeamRecord, cohortId: number, version: number): Promise<number> {
  const rows = await runResourceQuery(
    deps,
    team,
    'SELECT count(DISTINCT person_id) FROM cohort_people WHERE cohort_id = {id} AND version = {version}',
    { values: { id: cohortId, version } },
  );
  return Number(rows[0]?.[0] ?? 0);
}

/**
 * Recalculates a dynamic cohort: the persons matching its criteria now are written as the next
 * version, which becomes the one readers use once complete; older versions are then deleted.
 * Errors are recorded on the cohort (`errors_calculating`, `last_error`), never thrown.
 */
export async function calculateCohort(deps: Deps, teamId: number, cohortId: number): Promise<void> {
  const version = await startCalculation(deps.meta, cohortId);
  if (version === undefined) return;
  try {
    const [cohort, team] = await Promise.all([
      findCohort(deps.meta, teamId, cohortId),
      findTeam(deps.meta, teamId),
    ]);
    if (!cohort || !team || cohort.isStatic || cohort.deleted) {
      await failCalculation(deps.meta, cohortId, 'not a dynamic cohort', deps.now().toISOString());
      return;
    }
    const where = cohortCondition(cohort.filters, cohort.groups);
    let total = 0;
    for (let offset = 0; ; offset += PAGE) {
      const rows = await runResourceQuery(
        deps,
        team,
        'SELECT id FROM persons WHERE {where} ORDER BY id LIMIT {limit} OFFSET {offset}',
        { values: { limit: PAGE, offset }, exprs: { where } },
      );
      await insertMembers(
        deps,
        teamId,
        cohortId,
        version,
        rows.map((r) => String(r[0])),
      );
      total += rows.length;
      if (rows.length < PAGE) break;
    }
    await finishCalculation(deps.meta, cohortId, version, total, deps.now().toISOString());
    forgetTypedContext(deps, teamId);
    await deps.events.command(
      `DELETE FROM ${deps.events.table('cohort_people')} WHERE team_id = {team:Int64} AND cohort_id = {id:Int64} AND version < {version:Int64}`,
      { params: { team: teamId, id: cohortId, version } },
    );
  } catch (err) {
    const message = err instanceof ApiError ? err.detail : err instanceof Error ? err.message : String(err);
    await failCalculation(deps.meta, cohortId, message, deps.now().toISOString()).catch(() => {});
  }
}

/** Adds persons (by uuid or distinct id) to a static cohort; unknown ones are skipped. */
export async function addToStaticCohort(
  deps: Deps,
  access: ProjectAccess,
  rawId: string,
  who: { person_ids?: string[] | undefined; distinct_ids?: string[] | undefined },
): Promise<CohortRecord> {
  const cohort = await getCohort(deps, access, rawId);
  if (!cohort.isStatic) throw validationError('Only static cohorts take persons directly.', 'is_static');
  const given = (who.person_ids?.length ?? 0) + (who.distinct_ids?.length ?? 0);
  if (given > MAX_STATIC_ADD)
    throw validationError(`At most ${MAX_STATIC_ADD} persons can be added at once.`);
  const ids = new Set((who.person_ids ?? []).filter(isUuid).map((s) => s.toLowerCase()));
  for (const id of await personIdsByDistinctIds(deps.meta, access.team.id, who.distinct_ids ?? []))
    ids.add(id);
  const known = [...(await personsByIds(deps.meta, access.team.id, [...ids])).keys()];
  await insertMembers(deps, access.team.id, cohort.id, 0, known);
  await setStaticCount(
    deps.meta,
    cohort.id,
    await memberCount(deps, access.team, cohort.id, 0),
    deps.now().toISOString(),
  );
  return (await findCohort(deps.meta, access.team.id, cohort.id)) as CohortRecord;
}

/** One column of distinct ids (or person uuids), with or without a header row, as PostHog reads it. */
export function parseCohortCsv(text: string): string[] {
  const rows = text.split(/\r?\n/).map((line) => line.split(',')[0]?.trim().replace(/^"|"$/g, '') ?? '');
  const values = rows.filter((v) => v !== '');
  if (values.length && /^(distinct_id|distinct_ids|person_id|id|email)$/i.test(values[0] as string))
    values.shift();
  return values;
}

/**
 * Recalculates stale dynamic cohorts in the background (every `everyMs`, those last calculated
 * more than `staleMs` ago), one at a time. Returns a function that stops it.
 */
export function scheduleCohortRecalculation(
  deps: Deps,
  options: { everyMs: number; staleMs: number; onError: (err: unknown) => void },
): { stop: () => Promise<void>; request: (teamId: number, id: number) => void } {
  let running: Promise<void> = Promise.resolve();
  const enqueue = (work: () => Promise<void>) => {
    running = running.then(work).catch(options.onError);
  };
  const timer = setInterval(() => {
    enqueue(async () => {
      const before = new Date(deps.now().getTime() - options.staleMs).toISOString();
      for (const c of await staleCohorts(deps.meta, before, 20)) await calculateCohort(deps, c.teamId, c.id);
    });
  }, options.everyMs);
  timer.unref();
  return {
    request: (teamId, id) => enqueue(() => calculateCohort(deps, teamId, id)),
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * For feature flags (the cohort port): whether a person is a member of cohort `cohortId` of the
 * project (its last finished calculation, or its static members), and the cohort's person
 * property filters when it is made of nothing else (flags can then evaluate it locally).
 */
export async function isPersonInCohort(deps: Deps, team: TeamRecord, cohortId: number, personId: string) {
  const cohort = await findCohort(deps.meta, team.id, cohortId);
  if (!cohort || cohort.deleted || cohort.version === null || !isUuid(personId)) return false;
  const rows = await runResourceQuery(
    deps,
    team,
    'SELECT count() FROM cohort_people WHERE cohort_id = {id} AND version = {version} AND toString(person_id) = {person}',
    { values: { id: cohortId, version: cohort.version, person: personId.toLowerCase() } },
  );
  return Number(rows[0]?.[0] ?? 0) > 0;
}

export async function cohortPersonFilters(deps: Pick<Deps, 'meta'>, teamId: number, cohortId: number) {
  const cohort = await findCohort(deps.meta, teamId, cohortId);
  if (!cohort || cohort.deleted || cohort.isStatic) return undefined;
  return personPropertyFilters(cohort.filters);
}
