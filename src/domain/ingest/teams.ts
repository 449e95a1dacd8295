import { ApiError } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import { findTeamByToken, type TeamRecord } from '../../store/meta/teams.js';
import type { Bus } from '../../store/shared/bus.js';

export const invalidProjectKey = () =>
  new ApiError(
    401,
    'authentication_error',
    'invalid_project_api_key',
    'Project API key invalid. You can find your project API key in your project settings. ' +
      "In Burrow: project_api_key in bootstrap.json in the data directory, or api_token in GET /api/projects/{project_id}/ (sent as the body's api_key or token, not a personal phx_ key).",
  );

/** Published when a project's settings change, so every node re-reads them (see createTeamResolver). */
export const TEAM_CHANGED = 'team:changed';

/**
 * Project tokens are looked up on every capture request, so known tokens are remembered for
 * `ttlMs` (unknown ones are not, so a new project works at once). A project changed through the API
 * is forgotten at once on every node that hears `TEAM_CHANGED` on the bus.
 */
export function createTeamResolver(meta: MetaDb, ttlMs: number, bus?: Bus) {
  const cache = new Map<string, { team: TeamRecord; expiresAt: number }>();
  bus?.subscribe(TEAM_CHANGED, () => cache.clear()).catch(() => {});
  if (bus) {
    const local = localForgetters.get(bus) ?? new Set();
    local.add(() => cache.clear());
    localForgetters.set(bus, local);
  }
  return async (token: string | undefined): Promise<TeamRecord> => {
    if (!token) throw invalidProjectKey();
    const hit = cache.get(token);
    if (hit && hit.expiresAt > Date.now()) return hit.team;
    const team = await findTeamByToken(meta, token);
    if (!team) throw invalidProjectKey();
    if (cache.size > 10_000) cache.clear();
    cache.set(token, { team, expiresAt: Date.now() + ttlMs });
    return team;
  };
}

/**
 * This node's resolvers, by the bus they listen on: Redis delivers a message back to its sender
 * only after a round trip, so the node that changed a project forgets it itself, at once (the
 * next `/array/{token}/config` on this node already sees the change, as with the memory bus).
 */
const localForgetters = new WeakMap<Bus, Set<() => void>>();

/** Tells every node, this one first and at once, that a project's settings changed. */
export async function announceTeamChanged(bus: Bus | undefined, teamId: number): Promise<void> {
  if (!bus) return;
  for (const forget of localForgetters.get(bus) ?? []) forget();
  await bus.publish(TEAM_CHANGED, { id: teamId }).catch(() => {});
}

/** The project a request names by its project token; a token that names none is a 401. */
export async function teamOfProjectToken(meta: MetaDb, token: string): Promise<TeamRecord> {
  const team = await findTeamByToken(meta, token);
  if (!team) throw invalidProjectKey();
  return team;
}
