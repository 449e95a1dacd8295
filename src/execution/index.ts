/** Query execution: refresh modes, cache, single flight, background runs, cancel, date ranges. */

export {
  type DateRangeInput,
  type ResolvedDateRange,
  resolveDateRange,
  useStartOfInterval,
} from '../domain/time/date-range.js';
export {
  addIntervals,
  clickhouseWeekMode,
  dayInZone,
  formatInZone,
  intervalStarts,
  startOfInterval,
  type TrendInterval,
  type WeekStartDay,
} from '../domain/time/intervals.js';
export { parseDate, type RelativeDate } from '../domain/time/relative-date.js';
export { defaultExposeError } from './background.js';
export type { CacheEntry, QueryCache } from './cache.js';
export { type CacheKeyInput, queryCacheKey } from './cache-key.js';
export { CANCELLED_MESSAGE, type StatusAnswer } from './control.js';
export { type Action, decide, type Freshness, freshnessOf } from './decide.js';
export {
  DateRangeError,
  isCancelled,
  QueryCancelledError,
  QueryNotFoundError,
  QueryThrottledError,
} from './errors.js';
export { engineMarker } from './marker.js';
export {
  EXECUTION_MODES,
  type ExecutionMode,
  executionModeFromRefresh,
  queryEndpointMode,
} from './refresh.js';
export type { ExecuteQueryOutcome, ExecuteQueryRequest, QueryTeam, RunContext } from './request.js';
export type { CachedResponse, CacheFields, CacheMissResponse, StalenessHints } from './response.js';
export { createQueryRuntime, type QueryRuntime, type QueryRuntimeOptions } from './runtime.js';
export { QueryService } from './service.js';
export {
  cacheTargetAge,
  type Interval,
  isStale,
  NO_DATE_RANGE_INTERVAL,
  nextAllowedClientRefresh,
  stalenessThreshold,
} from './staleness.js';
export { isoSeconds, type QueryProgress, type QueryStatus, type StatusStore } from './status.js';
