import type { QueryRunner } from '../query/run.js';
import { webExternalClicksRunner } from './external-clicks.js';
import { webGoalsRunner } from './goals.js';
import { webOverviewRunner } from './overview.js';
import { sessionAttributionRunner } from './session-attribution.js';
import { webStatsTableRunner } from './stats-table.js';
import { webTrendsRunner } from './trends.js';
import { webVitalsPathBreakdownRunner, webVitalsRunner } from './vitals.js';

/** The web analytics query kinds `/query` runs. */
export const webAnalyticsRunners: Record<string, QueryRunner> = {
  WebOverviewQuery: webOverviewRunner,
  WebStatsTableQuery: webStatsTableRunner,
  WebTrendsQuery: webTrendsRunner,
  WebExternalClicksTableQuery: webExternalClicksRunner,
  WebGoalsQuery: webGoalsRunner,
  WebVitalsQuery: webVitalsRunner,
  WebVitalsPathBreakdownQuery: webVitalsPathBreakdownRunner,
  SessionAttributionExplorerQuery: sessionAttributionRunner,
};
