import { validationError } from '../../errors.js';
import { deletedRecordingIds } from '../../store/meta/recording-state.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import type { Deps } from '../deps.js';
import { isUuid } from '../ids.js';
import { jsonDepthExceeds, MAX_API_JSON_DEPTH } from '../json-depth.js';
import { resolveDateFilter } from '../time/date-filter.js';
import { resolveFilterActions } from './filter-actions.js';
import { resolveFilterCohorts } from './filter-cohorts.js';
import type { FilterNode, RecordingQuery } from './filter-types.js';
import { parseRecordingFilters } from './filters.js';
import { leaf } from './leaves.js';
import type { RecordingSearch } from './query.js';

/** The project's test-account filters as recording filter leaves (for `filter_test_accounts`). */
function testAccountFilters(team: TeamRecord): FilterNode[] {
  return team.testAccountFilters.map((f, i) => {
    try {
      return leaf(f, `filter_test_accounts__${i}`);
    } catch {
      throw validationError(
        "The project's test_account_filters cannot be applied to recordings.",
        'filter_test_accounts',
      );
    }
  });
}

/** A validated query made concrete for one run: dates resolved now, deleted recordings left out. */
export async function toSearch(
  deps: Deps,
  team: TeamRecord,
  q: RecordingQuery,
  page: { limit: number; offset: number },
  options: { ignoreDates?: boolean } = {},
): Promise<RecordingSearch> {
  const ctx = { timezone: team.timezone, now: deps.now() };
  const where = await resolveFilterCohorts(
    deps,
    team.id,
    await resolveFilterActions(
      deps,
      team.id,
      q.filterTestAccounts
        ? { kind: 'group', operator: 'AND', children: [q.where, ...testAccountFilters(team)] }
        : q.where,
    ),
  );
  if (q.personUuid !== undefined && !isUuid(q.personUuid)) {
    throw validationError('Must be a valid UUID.', 'person_uuid');
  }
  return {
    teamId: team.id,
    timezone: team.timezone,
    from: options.ignoreDates ? null : resolveDateFilter(q.dateFrom, ctx, false),
    to: options.ignoreDates || q.dateTo === null ? null : resolveDateFilter(q.dateTo, ctx, true),
    where,
    order: q.order,
    direction: q.direction,
    ...(q.sessionIds ? { sessionIds: q.sessionIds } : {}),
    ...(q.distinctIds ? { distinctIds: q.distinctIds } : {}),
    ...(q.personUuid ? { personUuid: q.personUuid.toLowerCase() } : {}),
    excludeIds: await deletedRecordingIds(deps.meta, team.id),
    limit: page.limit,
    offset: page.offset,
  };
}

/**
 * List query parameters as PostHog's clients send them: each value JSON-encoded when it is not a
 * plain string (`properties=[…]`, `filter_test_accounts=true`, `date_from=-7d`).
 */
export function queryFromParams(params: Record<string, unknown>): RecordingQuery {
  const decoded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    if (key === 'limit' || key === 'offset' || key === 'personal_api_key' || typeof value !== 'string')
      continue;
    if (jsonDepthExceeds(value, MAX_API_JSON_DEPTH)) {
      throw validationError(`Nested too deeply (more than ${MAX_API_JSON_DEPTH} levels).`, key);
    }
    try {
      decoded[key] = JSON.parse(value);
    } catch {
      decoded[key] = value;
    }
  }
  // A date that happens to parse as JSON (`2024`) is still the text that was sent.
  for (const k of ['date_from', 'date_to', 'person_uuid', 'order', 'order_direction', 'operand']) {
    if (typeof params[k] === 'string' && typeof decoded[k] !== 'string' && decoded[k] !== null)
      decoded[k] = params[k];
  }
  return parseRecordingFilters(decoded, '').query;
}
