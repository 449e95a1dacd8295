import { notFound } from '../../errors.js';
import { type AsyncDeletion, getDeletion, listDeletions } from '../../store/meta/async-deletions.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';

/** A deletion as the API shows it: counts rather than every id, and a share of steps done. */
export function deletionView(d: AsyncDeletion) {
  const done = d.steps.filter((s) => s.done).length;
  return {
    id: d.id,
    deletion_type: d.deletionType,
    scope: d.scope,
    status: d.status,
    persons: d.personIds.length,
    person_ids: d.personIds.slice(0, 100),
    progress: d.status === 'done' ? 1 : d.steps.length ? done / d.steps.length : 0,
    steps: d.steps,
    rows_deleted: d.steps.reduce((n, s) => n + (s.rows ?? 0), 0),
    attempts: d.attempts,
    error: d.error,
    created_at: d.createdAt,
    started_at: d.startedAt,
    finished_at: d.finishedAt,
  };
}

export async function deletionsOf(
  deps: Pick<Deps, 'meta'>,
  access: ProjectAccess,
  page: { limit: number; offset: number },
) {
  const { count, results } = await listDeletions(deps.meta, access.team.id, page);
  return { count, results: results.map(deletionView) };
}

export async function deletionOf(deps: Pick<Deps, 'meta'>, access: ProjectAccess, raw: string) {
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : null;
  const d = id === null ? null : await getDeletion(deps.meta, access.team.id, id);
  if (!d) throw notFound();
  return deletionView(d);
}
