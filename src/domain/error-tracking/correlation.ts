import { DateTime } from 'luxon';
import { validationError } from '../../errors.js';
import { and as andAll, type SelectQuery } from '../../hogql/ast.js';
import { parseSelect } from '../../hogql/parse.js';
import {
  fingerprintMap,
  fingerprintsOfIssues,
  issuesByIds,
  issuesState,
} from '../../store/meta/error-tracking.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { optionalObject, stringList } from '../query/node-checks.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { timeBounds } from '../query/time-bounds.js';
import { isoDateTime } from '../query/values.js';

/** PostHog's `ErrorTrackingIssueCorrelationQuery` node: the events to correlate issues with. */
interface CorrelationNode extends QueryNode {
  events: string[];
  modifiers?: Record<string, unknown>;
}

/** PostHog looks back 6 hours from now, with no date range of the query's own. */
const WINDOW_HOURS = 6;
/** PostHog's paginator: 50 event rows (the answer's `hasMore` says more were asked for). */
const LIMIT = 50;
const MAX_EVENT_NAME = 400;
/** Fingerprints considered per query (as ErrorTrackingQuery's cap). */
const MAX_GROUPS = 10_000;

export const CORRELATION_COLUMNS = [
  'id',
  'status',
  'name',
  'description',
  'first_seen',
  'assignee',
  'external_issues',
  'last_seen',
  'library',
  'odds_ratio',
  'population',
  'event',
];

/** The fingerprints seen in sessions in the window: last seen and the library of the latest. */
const FINGERPRINTS = `
  SELECT toString(properties.$exception_fingerprint) AS fingerprint, max(timestamp) AS last_seen,
    argMax(properties.$lib, timestamp) AS library
  FROM events
  WHERE {bounds} AND notEmpty($session_id) AND event = '$exception' AND notEmpty(fingerprint)
  GROUP BY fingerprint
  LIMIT ${MAX_GROUPS}`;

/**
 * PostHog's 2×2 table per (event, issue) over the window's sessions: the session's earliest
 * exception of the issue against its earliest event of that name. An exception before the event is
 * "both"; a session with the exception at or after the event counts in no cell (as PostHog's).
 * Events map to issues through `{fps}` → `{ids}` (the metadata store's fingerprints, so merges and
 * splits apply to events already stored).
 */
const TABLE = `
  SELECT event,
    sumForEach(both) AS both,
    sumForEach(success_only) AS success_only,
    sumForEach(exception_only) AS exception_only,
    sumForEach(neither) AS neither
  FROM (
    SELECT event,
      arrayMap(x -> if(x IS NOT NULL AND earliest_success_event IS NOT NULL AND x < earliest_success_event, 1, 0), earliest_exceptions) AS both,
      arrayMap(x -> if(x IS NULL AND earliest_success_event IS NOT NULL, 1, 0), earliest_exceptions) AS success_only,
      arrayMap(x -> if(x IS NOT NULL AND earliest_success_event IS NULL, 1, 0), earliest_exceptions) AS exception_only,
      arrayMap(x -> if(x IS NULL AND earliest_success_event IS NULL, 1, 0), earliest_exceptions) AS neither
    FROM (
      SELECT session_id, {events} AS events,
        minForEach(arrayMap(x -> if(event = x, toNullable(timestamp), NULL), {events})) AS earliest_success_events,
        minForEach(arrayMap(x -> if(x = issue, toNullable(timestamp), NULL), {issues})) AS earliest_exceptions
      FROM (
        SELECT $session_id AS session_id, event, timestamp,
          if(event = '$exception', arrayElement({ids}, indexOf({fps}, toString(properties.$exception_fingerprint))), '') AS issue
        FROM events
        WHERE {bounds} AND notEmpty($session_id)
      )
      GROUP BY session_id
    )
    ARRAY JOIN events AS event, earliest_success_events AS earliest_success_event
  )
  GROUP BY event
  ORDER BY event
  LIMIT ${LIMIT + 1}`;

function check(node: QueryNode): QueryNode {
  const events = stringList(node, 'events', true) ?? [];
  optionalObject(node, 'modifiers');
  if (events.length > LIMIT * 2) throw validationError(`events: at most ${LIMIT * 2} events`, 'events');
  if (events.some((e) => e.length > MAX_EVENT_NAME)) {
    throw validationError(`events: an event name is at most ${MAX_EVENT_NAME} characters`, 'events');
  }
  return node;
}

interface Correlation {
  last_seen: string | undefined;
  library: string | null;
  odds_ratio: number;
  population: { both: number; success_only: number; exception_only: number; neither: number };
  event: string;
}

interface Seen {
  lastSeen: string;
  library: string | null;
}

/**
 * Which active issues' exceptions come before an event in the same sessions more often than
 * chance: per issue and event, the odds ratio `(both × neither) / (success_only × exception_only)`
 * of the last 6 hours' sessions, only where every cell is non-zero, highest first (PostHog's).
 */
async function run(node: CorrelationNode, ctx: RunnerContext): Promise<QueryResult> {
  const meta = ctx.meta;
  if (!meta) throw new Error('ErrorTrackingIssueCorrelationQuery needs the metadata store');
  const since = DateTime.fromJSDate(ctx.now, { zone: 'utc' }).minus({ hours: WINDOW_HOURS });
  const bound = { bounds: andAll(...timeBounds('timestamp', { after: since.toISO() ?? undefined }, ctx)) };
  const fingerprints = await runSelect(parseSelect(FINGERPRINTS) as SelectQuery, ctx, {
    modifiers: node.modifiers,
    exprs: bound,
  });
  const map = await fingerprintMap(
    meta,
    ctx.teamId,
    fingerprints.rows.map((r) => String(r[0])),
  );
  const seen = new Map<string, Seen>();
  for (const [fp, last, library] of fingerprints.rows) {
    const issue = map.get(String(fp));
    if (!issue) continue;
    const lastSeen = String(isoDateTime(last, fingerprints.timezone));
    const cur = seen.get(issue);
    if (!cur || lastSeen > cur.lastSeen) {
      seen.set(issue, {
        lastSeen,
        library: library === null || library === undefined ? null : String(library),
      });
    }
  }
  const issueIds = [...seen.keys()];
  const empty = () =>
    queryResponse(
      { results: [], columns: CORRELATION_COLUMNS, hogql: fingerprints.hogql },
      { seconds: fingerprints.seconds, modifiers: node.modifiers },
      { hasMore: false, limit: LIMIT, offset: 0 },
    );
  if (issueIds.length === 0 || node.events.length === 0) return empty();
  const fps = [...map.keys()];
  const table = await runSelect(parseSelect(TABLE) as SelectQuery, ctx, {
    modifiers: node.modifiers,
    values: {
      events: node.events,
      issues: issueIds,
      fps,
      ids: fps.map((f) => map.get(f) as string),
    },
    exprs: bound,
  });
  const hasMore = table.rows.length > LIMIT;
  const correlations = new Map<string, Correlation[]>();
  for (const row of table.rows.slice(0, LIMIT)) {
    const event = String(row[0]);
    const [both, successOnly, exceptionOnly, neither] = [row[1], row[2], row[3], row[4]].map((v) =>
      (v as unknown[]).map(Number),
    ) as [number[], number[], number[], number[]];
    issueIds.forEach((id, i) => {
      const cell = [both[i] ?? 0, successOnly[i] ?? 0, exceptionOnly[i] ?? 0, neither[i] ?? 0];
      if (!cell.every((n) => n > 0)) return;
      const [b, s, e, n] = cell as [number, number, number, number];
      const list = correlations.get(id) ?? [];
      list.push({
        last_seen: seen.get(id)?.lastSeen,
        library: seen.get(id)?.library ?? null,
        odds_ratio: (b * n) / (s * e),
        population: { both: b, success_only: s, exception_only: e, neither: n },
        event,
      });
      correlations.set(id, list);
    });
  }
  // Only active issues are answered, with their first seen (the earliest fingerprint's).
  const issues = (await issuesByIds(meta, ctx.teamId, [...correlations.keys()])).filter(
    (i) => i.status === 'active',
  );
  const firstSeen = new Map<string, string>();
  for (const f of await fingerprintsOfIssues(
    meta,
    ctx.teamId,
    issues.map((i) => i.id),
  )) {
    if (!firstSeen.has(f.issueId)) firstSeen.set(f.issueId, f.firstSeen);
  }
  const results = issues.flatMap((i) =>
    (correlations.get(i.id) ?? []).map((c) => ({
      id: i.id,
      status: i.status,
      name: i.name,
      description: i.description,
      first_seen: firstSeen.get(i.id) ?? i.createdAt,
      assignee: i.assignee,
      external_issues: [],
      ...c,
    })),
  );
  results.sort((a, b) => b.odds_ratio - a.odds_ratio);
  return queryResponse(
    { results, columns: CORRELATION_COLUMNS, hogql: table.hogql },
    { seconds: fingerprints.seconds + table.seconds, modifiers: node.modifiers },
    { hasMore, limit: LIMIT, offset: 0 },
  );
}

export const correlationRunner: QueryRunner = {
  check,
  run: (node, ctx) => run(node as CorrelationNode, ctx),
  staleness: { interval: 'minute' },
  // Issue statuses and merges live in the metadata store: a change there is a new key.
  metaState: (deps, teamId) => issuesState(deps.meta, teamId),
};
