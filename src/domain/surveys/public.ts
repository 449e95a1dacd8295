import { hasRunningSurvey, liveSurveys } from '../../store/meta/surveys.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import type { FlagCache } from '../flags/cache.js';
import { teamSettings } from '../organizations/team-settings.js';
import { keepSurveysCurrent } from './schedule.js';
import { surveyFlags } from './surveys.js';

/**
 * What posthog-js fetches from `/api/surveys/?token=`: the project's launched, unarchived surveys
 * of the types it displays, each with the keys of the flags that gate it (the SDK evaluates them
 * itself) and only the fields it reads. Whether one shows on a page is the SDK's call (URL, selector,
 * device, events, wait period); Burrow answers what exists.
 */
export async function surveysForSdk(deps: Deps & { flags?: FlagCache }, team: TeamRecord) {
  const live = await keepSurveysCurrent(deps, team, await liveSurveys(deps.meta, team.id));
  const now = deps.now();
  // An ended survey (its limit reached, its last iteration over) leaves the list, as PostHog stops it.
  const surveys = live.filter(
    (s) =>
      s.type !== 'api' &&
      s.startDate !== null &&
      (s.endDate === null || Date.parse(s.endDate) > now.getTime()),
  );
  const flags = await surveyFlags(deps, team.id, surveys);
  const keyOf = (id: number | null) => {
    const flag = id === null ? undefined : flags.get(id);
    return flag && !flag.deleted ? flag.key : null;
  };
  return {
    surveys: surveys.map((s) => {
      const linked = keyOf(s.linkedFlagId);
      const targeting = keyOf(s.targetingFlagId);
      const internal = keyOf(s.internalTargetingFlagId);
      return {
        id: s.id,
        name: s.name,
        description: s.description,
        type: s.type,
        questions: s.questions,
        conditions: s.conditions,
        appearance: s.appearance,
        start_date: s.startDate,
        end_date: s.endDate,
        schedule: s.settings.schedule ?? 'once',
        current_iteration: s.settings.current_iteration ?? null,
        current_iteration_start_date: s.settings.current_iteration_start_date ?? null,
        enable_partial_responses: s.settings.enable_partial_responses === true,
        linked_flag_key: linked,
        targeting_flag_key: targeting,
        internal_targeting_flag_key: internal,
        feature_flag_keys: [
          { key: 'linked_flag_key', value: linked },
          { key: 'targeting_flag_key', value: targeting },
          { key: 'internal_targeting_flag_key', value: internal },
        ],
      };
    }),
    survey_config: teamSettings(team.settings).survey_config ?? null,
  };
}

/** For remote config: is there anything posthog-js should load surveys.js for? */
export function hasActiveSurveys(deps: Deps, team: TeamRecord): Promise<boolean> {
  if (teamSettings(team.settings).surveys_opt_in !== true) return Promise.resolve(false);
  return hasRunningSurvey(deps.meta, team.id, deps.now().toISOString());
}
