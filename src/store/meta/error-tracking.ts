import { type ColumnType, sql } from 'kysely';
import { iso } from './codec.js';
import type { MetaDb } from './db.js';
import { isUniqueViolation } from './errors.js';
import { likePattern } from './insights.js';

type Timestamp = ColumnType<Date | string, string, string>;

export interface ErrorTrackingIssuesTable {
  id: string;
  team_id: number;
  status: string;
  name: string | null;
  description: string | null;
  assignee: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ErrorTrackingFingerprintsTable {
  team_id: number;
  fingerprint: string;
  issue_id: string;
  first_seen: Timestamp;
}

export interface ErrorTrackingReleasesTable {
  id: string;
  team_id: number;
  hash_id: string;
  version: string;
  project: string;
  metadata: string | null;
  created_at: Timestamp;
}

export interface ErrorTrackingSymbolSetsTable {
  id: string;
  team_id: number;
  ref: string;
  release_id: string | null;
  storage_ptr: string | null;
  content_hash: string | null;
  failure_reason: string | null;
  created_at: Timestamp;
}

declare module './tables.js' {
  interface MetaTables {
    error_tracking_issues: ErrorTrackingIssuesTable;
    error_tracking_fingerprints: ErrorTrackingFingerprintsTable;
    error_tracking_releases: ErrorTrackingReleasesTable;
    error_tracking_symbol_sets: ErrorTrackingSymbolSetsTable;
  }
}

export interface IssueAssignee {
  type: 'user' | 'role';
  id: number | string;
}

export interface IssueRecord {
  id: string;
  teamId: number;
  status: string;
  name: string | null;
  description: string | null;
  assignee: IssueAssignee | null;
  createdAt: string;
  updatedAt: string;
}

type IssueRow = {
  id: string;
  team_id: number;
  status: string;
  name: string | null;
  description: string | null;
  assignee: string | null;
  created_at: Date | string;
  updated_at: Date | string;
};

const toIssue = (r: IssueRow): IssueRecord => ({
  id: r.id,
  teamId: r.team_id,
  status: r.status,
  name: r.name,
  description: r.description,
  assignee: r.assignee ? (JSON.parse(r.assignee) as IssueAssignee) : null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The issue a fingerprint belongs to, with its status (what ingestion needs). */
export async function issueOfFingerprint(
  db: MetaDb,
  teamId: number,
  fingerprint: string,
): Promise<{ id: string; status: string } | undefined> {
  return db
    .selectFrom('error_tracking_fingerprints as f')
    .innerJoin('error_tracking_issues as i', 'i.id', 'f.issue_id')
    .select(['i.id as id', 'i.status as status'])
    .where('f.team_id', '=', teamId)
    .where('f.fingerprint', '=', fingerprint)
    .executeTakeFirst();
}

/**
 * A new issue for a fingerprint seen for the first time. Two nodes (or requests) racing on the same
 * fingerprint: the loser's issue is rolled back and the winner's is answered.
 */
export async function createIssueForFingerprint(
  db: MetaDb,
  issue: {
    id: string;
    teamId: number;
    name: string;
    description: string;
    now: string;
    assignee?: IssueAssignee | null | undefined;
  },
  fingerprint: string,
): Promise<{ id: string; status: string; created: boolean }> {
  try {
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('error_tracking_issues')
        .values({
          id: issue.id,
          team_id: issue.teamId,
          status: 'active',
          name: issue.name,
          description: issue.description,
          assignee: issue.assignee ? JSON.stringify(issue.assignee) : null,
          created_at: issue.now,
          updated_at: issue.now,
        })
        .execute();
      await trx
        .insertInto('error_tracking_fingerprints')
        .values({ team_id: issue.teamId, fingerprint, issue_id: issue.id, first_seen: issue.now })
        .execute();
    });
    return { id: issue.id, status: 'active', created: true };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await issueOfFingerprint(db, issue.teamId, fingerprint);
    if (!winner) throw error;
    return { ...winner, created: false };
  }
}

export async function getIssue(db: MetaDb, teamId: number, id: string): Promise<IssueRecord | undefined> {
  const row = await db
    .selectFrom('error_tracking_issues')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toIssue(row) : undefined;
}

export async function issuesByIds(db: MetaDb, teamId: number, ids: string[]): Promise<IssueRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('error_tracking_issues')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', 'in', ids)
    .execute();
  return rows.map(toIssue);
}

export interface IssueFilter {
  status?: string | undefined;
  /** `{type, id}`: issues assigned to it. */
  assignee?: IssueAssignee | undefined;
  search?: string | undefined;
  /** Created at or after / before (ISO). */
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
}

export async function listIssues(
  db: MetaDb,
  teamId: number,
  filter: IssueFilter,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: IssueRecord[] }> {
  let base = db.selectFrom('error_tracking_issues').where('team_id', '=', teamId);
  if (filter.status && filter.status !== 'all') base = base.where('status', '=', filter.status);
  if (filter.assignee) base = base.where('assignee', '=', JSON.stringify(filter.assignee));
  if (filter.createdAfter) base = base.where('created_at', '>=', filter.createdAfter);
  if (filter.createdBefore) base = base.where('created_at', '<', filter.createdBefore);
  if (filter.search) {
    const p = likePattern(filter.search);
    base = base.where((eb) =>
      eb.or([
        sql<boolean>`lower(coalesce(name, '')) like ${p} escape '\\'`,
        sql<boolean>`lower(coalesce(description, '')) like ${p} escape '\\'`,
      ]),
    );
  }
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total?.n ?? 0), results: rows.map(toIssue) };
}

export async function updateIssue(
  db: MetaDb,
  teamId: number,
  id: string,
  patch: { status?: string; name?: string; description?: string; assignee?: IssueAssignee | null },
  now: string,
): Promise<IssueRecord | undefined> {
  const values: { status?: string; name?: string; description?: string; assignee?: string | null } = {};
  if (patch.status !== undefined) values.status = patch.status;
  if (patch.name !== undefined) values.name = patch.name;
  if (patch.description !== undefined) values.description = patch.description;
  if (patch.assignee !== undefined) values.assignee = patch.assignee ? JSON.stringify(patch.assignee) : null;
  await db
    .updateTable('error_tracking_issues')
    .set({ ...values, updated_at: now })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .execute();
  return getIssue(db, teamId, id);
}

/** Reopens a resolved issue that recurred; true when this call changed it. */
export async function reopenIssue(db: MetaDb, teamId: number, id: string, now: string): Promise<boolean> {
  const r = await db
    .updateTable('error_tracking_issues')
    .set({ status: 'active', updated_at: now })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .where('status', 'in', ['resolved', 'pending_release'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function fingerprintsOfIssues(
  db: MetaDb,
  teamId: number,
  issueIds: string[],
): Promise<{ fingerprint: string; issueId: string; firstSeen: string }[]> {
  if (issueIds.length === 0) return [];
  const rows = await db
    .selectFrom('error_tracking_fingerprints')
    .select(['fingerprint', 'issue_id', 'first_seen'])
    .where('team_id', '=', teamId)
    .where('issue_id', 'in', issueIds)
    .orderBy('first_seen')
    .execute();
  return rows.map((r) => ({ fingerprint: r.fingerprint, issueId: r.issue_id, firstSeen: iso(r.first_seen) }));
}

/** Every fingerprint of the project with its issue (the query maps event fingerprints through it). */
export async function fingerprintMap(
  db: MetaDb,
  teamId: number,
  fingerprints: string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < fingerprints.length; i += 500) {
    const rows = await db
      .selectFrom('error_tracking_fingerprints')
      .select(['fingerprint', 'issue_id'])
      .where('team_id', '=', teamId)
      .where('fingerprint', 'in', fingerprints.slice(i, i + 500))
      .execute();
    for (const r of rows) out.set(r.fingerprint, r.issue_id);
  }
  return out;
}

/** Moves the fingerprints of `ids` to `into` and deletes those issues (PostHog's merge). */
export async function mergeIssues(db: MetaDb, teamId: number, into: string, ids: string[]): Promise<void> {
  const others = ids.filter((id) => id !== into);
  if (others.length === 0) return;
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('error_tracking_fingerprints')
      .set({ issue_id: into })
      .where('team_id', '=', teamId)
      .where('issue_id', 'in', others)
      .execute();
    await trx
      .deleteFrom('error_tracking_issues')
      .where('team_id', '=', teamId)
      .where('id', 'in', others)
      .execute();
  });
}

/** Each named fingerprint of the issue becomes an issue of its own (PostHog's split). */
export async function splitIssue(
  db: MetaDb,
  teamId: number,
  from: IssueRecord,
  moves: { fingerprint: string; id: string; name: string; description: string }[],
  now: string,
): Promise<string[]> {
  const created: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (const m of moves) {
      // The new issue first: the fingerprint's foreign key must find it.
      await trx
        .insertInto('error_tracking_issues')
        .values({
          id: m.id,
          team_id: teamId,
          status: 'active',
          name: m.name,
          description: m.description,
          assignee: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const r = await trx
        .updateTable('error_tracking_fingerprints')
        .set({ issue_id: m.id })
        .where('team_id', '=', teamId)
        .where('issue_id', '=', from.id)
        .where('fingerprint', '=', m.fingerprint)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) > 0) created.push(m.id);
      else await trx.deleteFrom('error_tracking_issues').where('id', '=', m.id).execute();
    }
  });
  return created;
}

/** When the project's issues last changed, and how many there are and fingerprints (the query's cache key). */
export async function issuesState(db: MetaDb, teamId: number): Promise<string> {
  const issues = await db
    .selectFrom('error_tracking_issues')
    .select((eb) => [eb.fn.max('updated_at').as('at'), eb.fn.countAll<number>().as('n')])
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  const fps = await db
    .selectFrom('error_tracking_fingerprints')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  const at = issues?.at;
  return `${at ? iso(at as Date | string) : '-'}/${Number(issues?.n ?? 0)}/${Number(fps?.n ?? 0)}`;
}

export interface SymbolSetRecord {
  id: string;
  teamId: number;
  ref: string;
  releaseId: string | null;
  storagePtr: string | null;
  contentHash: string | null;
  failureReason: string | null;
  createdAt: string;
}

type SymbolSetRow = {
  id: string;
  team_id: number;
  ref: string;
  release_id: string | null;
  storage_ptr: string | null;
  content_hash: string | null;
  failure_reason: string | null;
  created_at: Date | string;
};

const toSymbolSet = (r: SymbolSetRow): SymbolSetRecord => ({
  id: r.id,
  teamId: r.team_id,
  ref: r.ref,
  releaseId: r.release_id,
  storagePtr: r.storage_ptr,
  contentHash: r.content_hash,
  failureReason: r.failure_reason,
  createdAt: iso(r.created_at),
});

export async function symbolSetByRef(
  db: MetaDb,
  teamId: number,
  ref: string,
): Promise<SymbolSetRecord | undefined> {
  const row = await db
    .selectFrom('error_tracking_symbol_sets')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('ref', '=', ref)
    .executeTakeFirst();
  return row ? toSymbolSet(row) : undefined;
}

export async function symbolSetById(
  db: MetaDb,
  teamId: number,
  id: string,
): Promise<SymbolSetRecord | undefined> {
  const row = await db
    .selectFrom('error_tracking_symbol_sets')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? toSymbolSet(row) : undefined;
}

export async function listSymbolSets(
  db: MetaDb,
  teamId: number,
  ref: string | undefined,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: SymbolSetRecord[] }> {
  let base = db.selectFrom('error_tracking_symbol_sets').where('team_id', '=', teamId);
  if (ref !== undefined) base = base.where('ref', '=', ref);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total?.n ?? 0), results: rows.map(toSymbolSet) };
}

export async function upsertSymbolSet(db: MetaDb, s: SymbolSetRecord): Promise<void> {
  const existing = await symbolSetById(db, s.teamId, s.id);
  if (existing) {
    await db
      .updateTable('error_tracking_symbol_sets')
      .set({
        release_id: s.releaseId,
        storage_ptr: s.storagePtr,
        content_hash: s.contentHash,
        failure_reason: s.failureReason,
      })
      .where('id', '=', s.id)
      .execute();
    return;
  }
  await db
    .insertInto('error_tracking_symbol_sets')
    .values({
      id: s.id,
      team_id: s.teamId,
      ref: s.ref,
      release_id: s.releaseId,
      storage_ptr: s.storagePtr,
      content_hash: s.contentHash,
      failure_reason: s.failureReason,
      created_at: s.createdAt,
    })
    .execute();
}

export async function deleteSymbolSet(db: MetaDb, teamId: number, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom('error_tracking_symbol_sets')
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export interface ReleaseRecord {
  id: string;
  teamId: number;
  hashId: string;
  version: string;
  project: string;
  metadata: unknown;
  createdAt: string;
}

type ReleaseRow = {
  id: string;
  team_id: number;
  hash_id: string;
  version: string;
  project: string;
  metadata: string | null;
  created_at: Date | string;
};

const toRelease = (r: ReleaseRow): ReleaseRecord => ({
  id: r.id,
  teamId: r.team_id,
  hashId: r.hash_id,
  version: r.version,
  project: r.project,
  metadata: r.metadata ? JSON.parse(r.metadata) : null,
  createdAt: iso(r.created_at),
});

export async function insertRelease(db: MetaDb, r: ReleaseRecord): Promise<void> {
  await db
    .insertInto('error_tracking_releases')
    .values({
      id: r.id,
      team_id: r.teamId,
      hash_id: r.hashId,
      version: r.version,
      project: r.project,
      metadata: r.metadata === null || r.metadata === undefined ? null : JSON.stringify(r.metadata),
      created_at: r.createdAt,
    })
    .execute();
}

export async function releaseBy(
  db: MetaDb,
  teamId: number,
  by: { id?: string; hashId?: string },
): Promise<ReleaseRecord | undefined> {
  let q = db.selectFrom('error_tracking_releases').selectAll().where('team_id', '=', teamId);
  if (by.id !== undefined) q = q.where('id', '=', by.id);
  if (by.hashId !== undefined) q = q.where('hash_id', '=', by.hashId);
  const row = await q.executeTakeFirst();
  return row ? toRelease(row) : undefined;
}

export async function listReleases(
  db: MetaDb,
  teamId: number,
  page: { limit: number; offset: number },
): Promise<{ count: number; results: ReleaseRecord[] }> {
  const base = db.selectFrom('error_tracking_releases').where('team_id', '=', teamId);
  const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(total?.n ?? 0), results: rows.map(toRelease) };
}
