import { randomBytes } from 'node:crypto';
import { notFound, validationError } from '../../errors.js';
import { type DashboardRecord, findDashboard } from '../../store/meta/dashboards.js';
import { findInsight, type InsightRecord } from '../../store/meta/insights.js';
import {
  findSharing,
  insertSharing,
  type SharingRecord,
  type SharingTarget,
  sharingByToken,
  updateSharing,
} from '../../store/meta/sharing.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { findTeam } from '../../store/meta/teams.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { boolField, jsonDepth, jsonSize } from './fields.js';

/**
 * Sharing links (PostHog's SharingConfiguration): one per insight or dashboard, created disabled on
 * first read. The access token is the whole credential of a public read, so it is long and random,
 * and refreshing it revokes every link handed out before.
 */
const newToken = () => randomBytes(22).toString('base64url');

/** The shared object must be the project's own and live. */
async function checkTarget(deps: Deps, access: ProjectAccess, target: SharingTarget): Promise<void> {
  const object =
    'insightId' in target
      ? await findInsight(deps.meta, access.team.id, target.insightId)
      : await findDashboard(deps.meta, access.team.id, target.dashboardId);
  if (!object || object.deleted) throw notFound();
}

export async function getSharing(
  deps: Deps,
  access: ProjectAccess,
  target: SharingTarget,
): Promise<SharingRecord> {
  await checkTarget(deps, access, target);
  const existing = await findSharing(deps.meta, access.team.id, target);
  if (existing) return existing;
  return insertSharing(deps.meta, {
    teamId: access.team.id,
    insightId: 'insightId' in target ? target.insightId : null,
    dashboardId: 'dashboardId' in target ? target.dashboardId : null,
    enabled: false,
    accessToken: newToken(),
    settings: null,
    createdAt: deps.now().toISOString(),
  });
}

export async function changeSharing(
  deps: Deps,
  access: ProjectAccess,
  target: SharingTarget,
  input: { enabled?: unknown; settings?: unknown; password_required?: unknown },
): Promise<SharingRecord> {
  // Share passwords (PostHog's paid Advanced Permissions) are not implemented: a link someone
  // believes protected must not be public, so asking for one is refused rather than ignored.
  if (input.password_required !== undefined && boolField(input.password_required, 'password_required'))
    throw validationError(
      'Password-protected sharing is not supported by Burrow: share without a password, or not at all.',
      'password_required',
      'not_supported',
    );
  const current = await getSharing(deps, access, target);
  const patch: { enabled?: boolean; accessToken?: string; settings?: Record<string, unknown> | null } = {};
  if (input.enabled !== undefined) patch.enabled = boolField(input.enabled, 'enabled');
  // Disabling revokes the link for good: the token is replaced as the link goes off, so enabling
  // again hands out a new one and a link passed around while it was shared stays dead. (The first
  // enable keeps the token read while disabled: it was never public.)
  if (patch.enabled === false && current.enabled) patch.accessToken = newToken();
  if (input.settings !== undefined) {
    const s = input.settings;
    if (s !== null && (typeof s !== 'object' || Array.isArray(s)))
      throw validationError('Must be an object.', 'settings');
    if (s !== null) {
      jsonSize(s, 'settings', 10_000);
      jsonDepth(s, 'settings', 8);
    }
    patch.settings = s as Record<string, unknown> | null;
  }
  return updateSharing(deps.meta, current.id, patch);
}

/** A new token: links with the old one stop working at once. */
export async function refreshSharing(
  deps: Deps,
  access: ProjectAccess,
  target: SharingTarget,
): Promise<SharingRecord> {
  const current = await getSharing(deps, access, target);
  return updateSharing(deps.meta, current.id, { accessToken: newToken() });
}

export type SharedObject =
  | { kind: 'insight'; team: TeamRecord; insight: InsightRecord; sharing: SharingRecord }
  | { kind: 'dashboard'; team: TeamRecord; dashboard: DashboardRecord; sharing: SharingRecord };

const TOKEN = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * What a public token opens: exactly one enabled, live object, or nothing (404 for every failure,
 * so a caller cannot tell a revoked link from a wrong one).
 */
export async function resolveShared(deps: Deps, token: string): Promise<SharedObject> {
  if (!TOKEN.test(token)) throw notFound();
  const sharing = await sharingByToken(deps.meta, token);
  if (!sharing?.enabled) throw notFound();
  const team = await findTeam(deps.meta, sharing.teamId);
  if (!team) throw notFound();
  if (sharing.insightId !== null) {
    const insight = await findInsight(deps.meta, team.id, sharing.insightId);
    if (!insight || insight.deleted) throw notFound();
    return { kind: 'insight', team, insight, sharing };
  }
  if (sharing.dashboardId !== null) {
    const dashboard = await findDashboard(deps.meta, team.id, sharing.dashboardId);
    if (!dashboard || dashboard.deleted) throw notFound();
    return { kind: 'dashboard', team, dashboard, sharing };
  }
  throw notFound();
}

/** Whether the dashboard has an enabled sharing link (its `is_shared`). */
export async function isDashboardShared(deps: Deps, dashboard: DashboardRecord): Promise<boolean> {
  return (await findSharing(deps.meta, dashboard.teamId, { dashboardId: dashboard.id }))?.enabled ?? false;
}
