import { randomUUID } from 'node:crypto';
import { invalidChoice, notFound, validationError } from '../../errors.js';
import {
  fingerprintsOfIssues,
  getIssue,
  type IssueAssignee,
  type IssueFilter,
  type IssueRecord,
  issuesByIds,
  listIssues,
  mergeIssues,
  splitIssue,
  updateIssue,
} from '../../store/meta/error-tracking.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { issueCacheFor } from './issue-cache.js';

export const ISSUE_STATUSES = ['active', 'resolved', 'archived', 'suppressed', 'pending_release'] as const;
/** Issues merged or split by one call. */
export const MAX_ISSUES_PER_CALL = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IssueView extends IssueRecord {
  firstSeen: string;
  fingerprints: string[];
}

function checkId(id: string, attr: string | null = null): void {
  if (!UUID.test(id))
    throw attr ? validationError(`"${id.slice(0, 64)}" is not a valid UUID.`, attr) : notFound();
}

export function checkStatus(status: string | undefined, attr = 'status'): void {
  if (status !== undefined && !(ISSUE_STATUSES as readonly string[]).includes(status)) {
    throw invalidChoice(status, ISSUE_STATUSES, attr);
  }
}

export function checkAssignee(a: IssueAssignee | null | undefined): void {
  if (!a) return;
  if (a.type !== 'user' && a.type !== 'role') throw invalidChoice(a.type, ['user', 'role'], 'assignee');
}

async function views(deps: Deps, teamId: number, issues: IssueRecord[]): Promise<IssueView[]> {
  const fps = await fingerprintsOfIssues(
    deps.meta,
    teamId,
    issues.map((i) => i.id),
  );
  return issues.map((i) => {
    const own = fps.filter((f) => f.issueId === i.id);
    return { ...i, firstSeen: own[0]?.firstSeen ?? i.createdAt, fingerprints: own.map((f) => f.fingerprint) };
  });
}

export async function listIssueViews(
  deps: Deps,
  access: ProjectAccess,
  filter: IssueFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: IssueView[] }> {
  checkStatus(filter.status === 'all' ? undefined : filter.status);
  const data = await listIssues(deps.meta, access.team.id, filter, page);
  return { count: data.count, results: await views(deps, access.team.id, data.results) };
}

export async function getIssueView(deps: Deps, access: ProjectAccess, id: string): Promise<IssueView> {
  checkId(id);
  const issue = await getIssue(deps.meta, access.team.id, id);
  if (!issue) throw notFound();
  return (await views(deps, access.team.id, [issue]))[0] as IssueView;
}

export async function changeIssue(
  deps: Deps,
  access: ProjectAccess,
  id: string,
  patch: { status?: string; name?: string; description?: string; assignee?: IssueAssignee | null },
): Promise<IssueView> {
  checkId(id);
  checkStatus(patch.status);
  checkAssignee(patch.assignee);
  const changed = await updateIssue(deps.meta, access.team.id, id, patch, deps.now().toISOString());
  if (!changed) throw notFound();
  // Ingestion on this node must see a new status (suppressed, resolved) at once.
  issueCacheFor(deps.meta).forgetTeam(access.team.id);
  return (await views(deps, access.team.id, [changed]))[0] as IssueView;
}

/** PostHog's merge: the other issues' fingerprints move to this one, and they are gone. */
export async function mergeInto(deps: Deps, access: ProjectAccess, id: string, ids: string[]): Promise<void> {
  checkId(id);
  if (ids.length === 0) throw validationError('This field is required.', 'ids', 'required');
  if (ids.length > MAX_ISSUES_PER_CALL)
    throw validationError(`At most ${MAX_ISSUES_PER_CALL} issues.`, 'ids');
  for (const other of ids) checkId(other, 'ids');
  const found = await issuesByIds(deps.meta, access.team.id, [id, ...ids]);
  if (found.length !== new Set([id, ...ids]).size) throw notFound();
  await mergeIssues(deps.meta, access.team.id, id, ids);
  issueCacheFor(deps.meta).forgetTeam(access.team.id);
}

/** PostHog's split: each named fingerprint of the issue becomes an issue of its own. */
export async function splitFingerprints(
  deps: Deps,
  access: ProjectAccess,
  id: string,
  fingerprints: { fingerprint: string; name?: string | undefined; description?: string | undefined }[],
): Promise<string[]> {
  const issue = await getIssueView(deps, access, id);
  if (fingerprints.length === 0) throw validationError('This field is required.', 'fingerprints', 'required');
  if (fingerprints.length > MAX_ISSUES_PER_CALL) {
    throw validationError(`At most ${MAX_ISSUES_PER_CALL} fingerprints.`, 'fingerprints');
  }
  for (const f of fingerprints) {
    if (!issue.fingerprints.includes(f.fingerprint)) {
      throw validationError('Not a fingerprint of this issue.', 'fingerprints');
    }
  }
  if (fingerprints.length >= issue.fingerprints.length) {
    throw validationError('An issue keeps at least one fingerprint.', 'fingerprints');
  }
  const created = await splitIssue(
    deps.meta,
    access.team.id,
    issue,
    fingerprints.map((f) => ({
      fingerprint: f.fingerprint,
      id: randomUUID(),
      name: f.name ?? issue.name ?? '',
      description: f.description ?? issue.description ?? '',
    })),
    deps.now().toISOString(),
  );
  issueCacheFor(deps.meta).forgetTeam(access.team.id);
  return created;
}
