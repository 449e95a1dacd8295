import { call, compare, constant, type Expr, field } from '../ast.js';
import { channelTypeHogQL } from '../channel-type.js';
import { parseExpr } from '../parse.js';
import { col, type FieldDef, type TableDef } from './fields.js';
import { type LazyFieldExpr, lazySelect } from './lazy.js';
import { REPLAY_SUMS } from './raw.js';

/** PostHog's default: a session shorter than this with one pageview and no autocapture bounced. */
export const BOUNCE_SECONDS = 10;

const agg = (fn: string, name: string) => () => call(fn, [field(name)]);
/** Entry/exit attributes: '' (no event had a URL) reads as NULL. */
const state = (fn: 'argMinMerge' | 'argMaxMerge', name: string) => () =>
  call('nullIf', [call(fn, [field(name)]), constant('')]);
const start = agg('min', 'min_timestamp');
const end = agg('max', 'max_timestamp');
const duration = () => call('dateDiff', [constant('second'), start(), end()]);
const pageviews = agg('sum', 'pageview_count');

const entry = (name: string) => `nullIf(argMinMerge(${name}), '')`;
/** PostHog's channel classification of the session's first touch (no click ids are kept per session). */
const channelType = () =>
  parseExpr(
    channelTypeHogQL({
      referringDomain: entry('entry_referring_domain'),
      utmSource: entry('entry_utm_source'),
      utmMedium: entry('entry_utm_medium'),
      utmCampaign: entry('entry_utm_campaign'),
    }),
  );

const exprs: Record<string, LazyFieldExpr> = {
  session_id: () => field('session_id'),
  id: () => field('session_id'),
  distinct_id: agg('any', 'distinct_id'),
  $start_timestamp: start,
  $end_timestamp: end,
  max_inserted_at: agg('max', 'max_inserted_at'),
  $urls: () => call('arrayDistinct', [call('arrayFlatten', [call('groupArray', [field('urls')])])]),
  $num_uniq_urls: () =>
    call('length', [call('arrayDistinct', [call('arrayFlatten', [call('groupArray', [field('urls')])])])]),
  $entry_current_url: state('argMinMerge', 'entry_url'),
  $entry_pathname: state('argMinMerge', 'entry_pathname'),
  $entry_referring_domain: state('argMinMerge', 'entry_referring_domain'),
  $entry_utm_source: state('argMinMerge', 'entry_utm_source'),
  $entry_utm_medium: state('argMinMerge', 'entry_utm_medium'),
  $entry_utm_campaign: state('argMinMerge', 'entry_utm_campaign'),
  $entry_utm_term: state('argMinMerge', 'entry_utm_term'),
  $entry_utm_content: state('argMinMerge', 'entry_utm_content'),
  $end_current_url: state('argMaxMerge', 'exit_url'),
  $end_pathname: state('argMaxMerge', 'exit_pathname'),
  $exit_current_url: state('argMaxMerge', 'exit_url'),
  $exit_pathname: state('argMaxMerge', 'exit_pathname'),
  $pageview_count: pageviews,
  $channel_type: channelType,
  $autocapture_count: agg('sum', 'autocapture_count'),
  $screen_count: agg('sum', 'screen_count'),
  $event_count: agg('sum', 'event_count'),
  $session_duration: duration,
  duration,
  $is_bounce: (): Expr =>
    call('if', [
      compare('==', pageviews(), constant(0)),
      constant(null),
      call('not', [
        call('or', [
          compare('>', pageviews(), constant(1)),
          compare('>', call('sum', [field('autocapture_count')]), constant(0)),
          compare('>=', duration(), constant(BOUNCE_SECONDS)),
        ]),
      ]),
    ]),
};

const types: Record<string, FieldDef> = {
  session_id: col('session_id', 'string'),
  id: col('id', 'string'),
  distinct_id: col('distinct_id', 'string'),
  $start_timestamp: col('$start_timestamp', 'datetime'),
  $end_timestamp: col('$end_timestamp', 'datetime'),
  max_inserted_at: col('max_inserted_at', 'datetime', { hidden: true }),
  $urls: col('$urls', 'array'),
  $num_uniq_urls: col('$num_uniq_urls', 'integer'),
  $pageview_count: col('$pageview_count', 'integer'),
  $autocapture_count: col('$autocapture_count', 'integer'),
  $screen_count: col('$screen_count', 'integer'),
  $event_count: col('$event_count', 'integer'),
  $session_duration: col('$session_duration', 'integer'),
  duration: col('duration', 'integer', { hidden: true }),
  $is_bounce: col('$is_bounce', 'boolean', { nullable: true }),
};
for (const name of Object.keys(exprs)) {
  if (!types[name]) types[name] = col(name, 'string', { nullable: true });
}

/** One row per session, aggregated from the pre-aggregated `raw_sessions` rows. */
export const sessions: TableDef = {
  name: 'sessions',
  fields: types,
  lazy: (requested) =>
    lazySelect({
      from: 'raw_sessions',
      exprs,
      requested,
      always: ['session_id'],
      groupBy: ['session_id'],
    }),
};

const replayExprs: Record<string, LazyFieldExpr> = {
  session_id: () => field('session_id'),
  distinct_id: agg('any', 'distinct_id'),
  start_time: agg('min', 'min_first_timestamp'),
  end_time: agg('max', 'max_last_timestamp'),
  first_url: agg('argMinMerge', 'first_url'),
  all_urls: () => call('arrayDistinct', [call('arrayFlatten', [call('groupArray', [field('all_urls')])])]),
  snapshot_source: agg('any', 'snapshot_source'),
  ...Object.fromEntries(REPLAY_SUMS.map((c) => [c, agg('sum', c)])),
};

/** One row per recording. */
export const sessionReplayEvents: TableDef = {
  name: 'session_replay_events',
  fields: {
    session_id: col('session_id', 'string'),
    distinct_id: col('distinct_id', 'string'),
    start_time: col('start_time', 'datetime'),
    end_time: col('end_time', 'datetime'),
    first_url: col('first_url', 'string'),
    all_urls: col('all_urls', 'array'),
    snapshot_source: col('snapshot_source', 'string'),
    ...Object.fromEntries(REPLAY_SUMS.map((c) => [c, col(c, 'integer')])),
    session: {
      kind: 'lazy_join',
      table: 'sessions',
      join: 'LEFT JOIN',
      from: 'session_id',
      to: 'session_id',
    },
    pdi: {
      kind: 'lazy_join',
      table: 'person_distinct_ids',
      join: 'LEFT JOIN',
      from: 'distinct_id',
      to: 'distinct_id',
    },
    person: { kind: 'traverser', chain: ['pdi', 'person'] },
    person_id: { kind: 'traverser', chain: ['pdi', 'person_id'] },
  },
  lazy: (requested) =>
    lazySelect({
      from: 'raw_session_replay_events',
      exprs: replayExprs,
      requested,
      always: ['session_id'],
      groupBy: ['session_id'],
    }),
};
