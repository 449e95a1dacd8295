import { updateFeatureFlag } from '../../store/meta/feature-flags.js';
import { type SurveyRecord, updateSurvey } from '../../store/meta/surveys.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import type { FlagCache } from '../flags/cache.js';
import { runResourceQuery } from '../persons/hogql.js';

const DAY = 86_400_000;
const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);
const dayOf = (iso: string | Date) => Math.floor(new Date(iso).getTime() / DAY);

/**
 * PostHog's iteration start dates: from `start_date`, one every `iteration_frequency_days`,
 * `iteration_count` of them; none unless all three are set.
 */
export function iterationStartDates(s: Pick<SurveyRecord, 'startDate' | 'settings'>): string[] {
  const count = int(s.settings.iteration_count);
  const every = int(s.settings.iteration_frequency_days);
  if (s.startDate === null || count === null || every === null) return [];
  const start = Date.parse(s.startDate);
  return Array.from({ length: Math.min(count, 1000) }, (_, i) =>
    new Date(start + i * every * DAY).toISOString(),
  );
}

/**
 * The iteration running on `now`'s day (1-based), as PostHog's daily task computes it: the first
 * start date at most `iteration_frequency_days` days before today; 0 when none is, or the survey ended.
 */
export function currentIteration(s: Pick<SurveyRecord, 'startDate' | 'endDate' | 'settings'>, now: Date) {
  const every = int(s.settings.iteration_frequency_days);
  if (every === null || s.endDate !== null) return 0;
  const today = dayOf(now);
  const starts = iterationStartDates(s);
  const i = starts.findIndex((d) => today - dayOf(d) >= 0 && today - dayOf(d) <= every);
  return i + 1;
}

/** Did the last iteration end before today (then PostHog ends the survey)? */
function finalIterationEnded(s: SurveyRecord, now: Date) {
  const starts = iterationStartDates(s);
  const every = int(s.settings.iteration_frequency_days);
  const last = starts.at(-1);
  return last !== undefined && every !== null && dayOf(now) > dayOf(last) + every;
}

/** Answers per survey as PostHog counts them for `responses_limit`: one per submission id, else per event. */
async function uniqueResponses(deps: Deps, team: TeamRecord, surveys: SurveyRecord[]) {
  const since = surveys.map((s) => s.createdAt).sort()[0];
  const rows = await runResourceQuery(
    deps,
    team,
    `SELECT toString(properties.$survey_id) AS survey,
            count(DISTINCT coalesce(nullIf(toString(properties.$survey_submission_id), ''), toString(uuid)))
     FROM events
     WHERE event = 'survey sent' AND timestamp >= toDateTime64({since}, 6, 'UTC') AND toString(properties.$survey_id) IN {ids}
     GROUP BY survey`,
    { values: { since, ids: surveys.map((s) => s.id) } },
  );
  return new Map(rows.map(([id, n]) => [String(id), Number(n)]));
}

const unset = (key: string) => ({ key, type: 'person', value: 'is_not_set', operator: 'is_not_set' });

/**
 * What PostHog's periodic tasks do, done when the surveys are read for the SDK: a survey that
 * reached `responses_limit` ends (and its limit is cleared); a recurring one moves to the iteration
 * of today (its internal targeting flag then hides it only from who answered or dismissed this
 * iteration, `$survey_responded/<id>/<n>`), and ends after its last one. Returns the surveys as they are now.
 */
export async function keepSurveysCurrent(
  deps: Deps & { flags?: FlagCache },
  team: TeamRecord,
  surveys: SurveyRecord[],
): Promise<SurveyRecord[]> {
  const now = deps.now();
  const stamp = now.toISOString();
  const open = surveys.filter((s) => s.startDate !== null && s.endDate === null && !s.archived);
  const limited = open.filter((s) => int(s.settings.responses_limit) !== null);
  const counts = limited.length ? await uniqueResponses(deps, team, limited) : new Map<string, number>();
  const out = new Map(surveys.map((s) => [s.id, s]));
  let flagsChanged = false;
  for (const s of open) {
    const limit = int(s.settings.responses_limit);
    if ((limit !== null && (counts.get(s.id) ?? 0) >= limit) || finalIterationEnded(s, now)) {
      const settings =
        limit !== null && (counts.get(s.id) ?? 0) >= limit
          ? { ...s.settings, responses_limit: null }
          : s.settings;
      const ended = await updateSurvey(deps.meta, team.id, s.id, {
        endDate: stamp,
        settings,
        updatedAt: stamp,
      });
      if (ended) out.set(s.id, ended);
      if (s.internalTargetingFlagId !== null) {
        await updateFeatureFlag(deps.meta, team.id, s.internalTargetingFlagId, {
          active: false,
          updatedAt: stamp,
        });
        flagsChanged = true;
      }
      continue;
    }
    const iteration = currentIteration(s, now);
    if (iteration > 0 && iteration !== s.settings.current_iteration) {
      const settings = {
        ...s.settings,
        current_iteration: iteration,
        current_iteration_start_date: iterationStartDates(s)[iteration - 1] ?? null,
      };
      const moved = await updateSurvey(deps.meta, team.id, s.id, { settings, updatedAt: stamp });
      if (moved) out.set(s.id, moved);
      if (s.internalTargetingFlagId !== null) {
        await updateFeatureFlag(deps.meta, team.id, s.internalTargetingFlagId, {
          filters: {
            groups: [
              {
                variant: null,
                rollout_percentage: 100,
                properties: [
                  unset(`$survey_dismissed/${s.id}/${iteration}`),
                  unset(`$survey_responded/${s.id}/${iteration}`),
                ],
              },
            ],
          },
          updatedAt: stamp,
        });
        flagsChanged = true;
      }
    }
  }
  if (flagsChanged) await deps.flags?.changed(team.id);
  return surveys.map((s) => out.get(s.id) ?? s);
}
