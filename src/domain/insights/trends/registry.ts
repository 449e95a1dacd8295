import type { QueryNode } from '../../query/kinds.js';
import type { QueryRunner } from '../../query/run.js';
import { resolveDateRange } from '../../time/date-range.js';
import { lifecycleRunner } from '../lifecycle.js';
import { stickinessRunner } from '../stickiness.js';
import type { InsightNode } from './node.js';
import './actors.js';
import { trendsRunner } from './runner.js';

/**
 * Staleness of an insight result: judged by its interval, and never stale once its date_to lies
 * before the calculation (PostHog's rules).
 */
function insightHints(node: QueryNode, team: { timezone: string; now: Date }) {
  const n = node as InsightNode;
  const interval = n.interval ?? 'day';
  try {
    const range = resolveDateRange(n.dateRange ?? null, { timezone: team.timezone, now: team.now, interval });
    return { interval, dateTo: range.dateTo };
  } catch {
    return { interval };
  }
}

const withHints = (runner: QueryRunner): QueryRunner => ({ ...runner, hints: insightHints });

/** The insight kinds, added to the query runner registry. */
export const insightRunners: Record<string, QueryRunner> = {
  TrendsQuery: withHints(trendsRunner),
  StickinessQuery: withHints(stickinessRunner),
  LifecycleQuery: withHints(lifecycleRunner),
};
