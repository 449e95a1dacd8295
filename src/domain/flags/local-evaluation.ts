import type { TeamRecord } from '../../store/meta/teams.js';
import type { FlagCache } from './cache.js';
import type { CohortLookup } from './cohorts.js';
import { etagOf } from './secret-key.js';

/**
 * What server SDKs poll for local evaluation (`/flags/definitions`, `/api/feature_flag/local_evaluation`):
 * every live flag with its filters, the group type mapping and, with `send_cohorts`, the cohorts
 * flags refer to. Rendered once per flag snapshot and cached with it, so a poll costs a lookup.
 */
export async function localEvaluation(
  cache: FlagCache,
  cohorts: CohortLookup | null,
  team: TeamRecord,
  sendCohorts: boolean,
): Promise<{ body: string; etag: string }> {
  const snapshot = await cache.get(team.id);
  const variant = sendCohorts ? 'cohorts' : 'plain';
  let body = snapshot.rendered.get(variant);
  if (body === undefined) {
    const cohortDefs =
      sendCohorts && cohorts && snapshot.cohortIds.length > 0
        ? await cohorts.definitions(team.id, snapshot.cohortIds)
        : {};
    body = JSON.stringify({
      flags: snapshot.records.map((f) => ({
        id: f.id,
        team_id: f.teamId,
        name: f.name,
        key: f.key,
        filters: f.filters,
        deleted: false,
        active: f.active,
        ensure_experience_continuity: f.ensureExperienceContinuity,
        has_encrypted_payloads: false,
        version: f.version,
        evaluation_runtime: f.evaluationRuntime,
        bucketing_identifier: 'distinct_id',
        evaluation_tags: [],
      })),
      group_type_mapping: snapshot.groupTypeMapping,
      cohorts: cohortDefs,
    });
    snapshot.rendered.set(variant, body);
  }
  return { body, etag: etagOf(body) };
}
