import { tilesOfInsights } from '../../store/meta/dashboards.js';
import type { InsightRecord } from '../../store/meta/insights.js';
import { usersById } from '../accounts/users.js';
import type { Deps } from '../deps.js';
import { TILE_CONCURRENCY } from './dashboard-view.js';
import { boundedAll } from './results.js';

/**
 * What insights' responses show besides the records: the tiles placing them (their `dashboards`),
 * the users named, and each insight's results from `results`, a few insights at a time.
 */
export async function insightViews<R>(
  deps: Deps,
  insights: InsightRecord[],
  results: (i: InsightRecord) => Promise<R>,
) {
  const [tiles, users, computed] = await Promise.all([
    tilesOfInsights(
      deps.meta,
      insights.map((i) => i.id),
    ),
    usersById(
      deps,
      insights.flatMap((i) => [i.createdBy, i.lastModifiedBy]),
    ),
    boundedAll(
      insights.map((i) => () => results(i)),
      TILE_CONCURRENCY,
    ),
  ]);
  return { tiles, users, results: computed };
}
