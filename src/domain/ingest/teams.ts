import type { MetaDb } from '../../store/meta/db.js';
import { findTeamByToken, type TeamRecord } from '../../store/meta/teams.js';
import { ApiError } from '../errors.js';

export const invalidProjectKey = () =>
  new ApiError(
    401,
    'authentication_error',
    'invalid_project_api_key',
    'Project API key invalid. You can find your project API key in your project settings. ' +
      "In Burrow: project_api_key in bootstrap.json in the data directory, or api_token in GET /api/projects/{project_id}/ (sent as the body's api_key or token, not a personal phx_ key).",
  );

/**
 * Project tokens are looked up on every capture request, so known tokens are remembered for
 * `ttlMs` (unknown ones are not, so a new project works at once).
 */
export function createTeamResolver(meta: MetaDb, ttlMs: number) {
  const cache = new Map<string, { team: TeamRecord; expiresAt: number }>();
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
