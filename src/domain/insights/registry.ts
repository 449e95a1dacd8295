import { registerActorsSource } from '../query/actors-source.js';
import type { QueryNode } from '../query/kinds.js';
import type { QueryRunner } from '../query/run.js';
import { resolveDateRange } from '../time/date-range.js';
import { funnelActorsSource } from './funnels/actors.js';
import { funnelsRunner } from './funnels/runner.js';
import { pathsRunner } from './paths.js';
import { retentionInterval, retentionRunner } from './retention.js';

type Interval = 'minute' | 'hour' | 'day' | 'week' | 'month';

/** Staleness by the query's interval; results whose date_to lies in the past never go stale. */
function hintsBy(intervalOf: (node: QueryNode) => Interval) {
  return (node: QueryNode, team: { timezone: string; now: Date }) => {
    const interval = intervalOf(node);
    try {
      const range = resolveDateRange((node.dateRange as never) ?? null, {
        timezone: team.timezone,
        now: team.now,
        interval,
      });
      return { interval, dateTo: range.dateTo };
    } catch {
      return { interval };
    }
  };
}

const nodeInterval = (node: QueryNode): Interval =>
  typeof node.interval === 'string' && ['minute', 'hour', 'day', 'week', 'month'].includes(node.interval)
    ? (node.interval as Interval)
    : 'day';

/** Funnels, retention and paths, added to the query runner registry. */
export const funnelRetentionPathsRunners: Record<string, QueryRunner> = {
  FunnelsQuery: { ...funnelsRunner, hints: hintsBy(nodeInterval) },
  RetentionQuery: { ...retentionRunner, hints: hintsBy(retentionInterval) },
  PathsQuery: { ...pathsRunner, hints: hintsBy(() => 'day') },
};

registerActorsSource('FunnelsActorsQuery', funnelActorsSource);
