import { DateTime } from 'luxon';
import { validationError as validationErrorOf } from '../../errors.js';
import { and as andAll, constant, type Expr, type SelectQuery } from '../../hogql/ast.js';
import { parseSelect } from '../../hogql/parse.js';
import { type AnyProperties, at, propertiesToExpr } from '../../hogql/property-filters.js';
import {
  fingerprintMap,
  fingerprintsOfIssues,
  type IssueAssignee,
  type IssueRecord,
  issuesByIds,
  issuesState,
} from '../../store/meta/error-tracking.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { optionalBoolean, optionalInteger, optionalObject, optionalString } from '../query/node-checks.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { checkBounds, timeBounds } from '../query/time-bounds.js';
import { isoDateTime } from '../query/values.js';
import { parseDate } from '../time/relative-date.js';
import { correlationRunner } from './correlation.js';
import { checkAssignee, checkStatus } from './issues.js';

/** PostHog's `ErrorTrackingQuery` node (frontend/src/queries/schema/schema-general.ts). */
interface ErrorTrackingNode extends QueryNode {
  issueId?: string;
  orderBy?: 'last_seen' | 'first_seen' | 'occurrences' | 'users' | 'sessions';
  orderDirection?: 'ASC' | 'DESC';
  dateRange?: { date_from?: string | null; date_to?: string | null };
  status?: string;
  assignee?: IssueAssignee | null;
  filterGroup?: AnyProperties;
  filterTestAccounts?: boolean;
  searchQuery?: string;
  volumeResolution?: number;
  withAggregations?: boolean;
  withFirstEvent?: boolean;
  withLastEvent?: boolean;
  limit?: number;
  offset?: number;
  modifiers?: Record<string, unknown>;
}

const ORDERS = ['last_seen', 'first_seen', 'occurrences', 'users', 'sessions'];
/** Fingerprints aggregated per query: more distinct groups in a range than this are cut. */
const MAX_GROUPS = 10_000;
const MAX_BUCKETS = 200;
const MAX_SEARCH = 1_000;
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/** One row per fingerprint in the range: counts, first/last seen, the search match. */
const GROUPS = `
  SELECT
    properties.$exception_fingerprint AS fingerprint,
    count() AS occurrences,
    count(DISTINCT properties.$session_id) AS sessions,
    count(DISTINCT distinct_id) AS users,
    min(timestamp) AS first_seen,
    max(timestamp) AS last_seen,
    argMax(properties.$lib, timestamp) AS library,
    countIf({search}) AS matched
  FROM events
  WHERE event = '$exception' AND notEmpty(toString(properties.$exception_fingerprint))
    AND {bounds} AND {filters}
  GROUP BY fingerprint
  LIMIT ${MAX_GROUPS}`;

const BUCKETS = `
  SELECT properties.$exception_fingerprint AS fingerprint,
    intDiv(toUnixTimestamp(timestamp) - {from}, {width}) AS bucket,
    count()
  FROM events
  WHERE event = '$exception' AND has({fingerprints}, toString(properties.$exception_fingerprint)) AND {bounds} AND {filters}
  GROUP BY fingerprint, bucket`;

const SAMPLE = `
  SELECT uuid, timestamp, properties FROM events
  WHERE event = '$exception' AND has({fingerprints}, toString(properties.$exception_fingerprint)) AND {bounds}
  ORDER BY timestamp {direction}
  LIMIT 1`;

function check(node: QueryNode): QueryNode {
  const n = node as ErrorTrackingNode;
  optionalString(node, 'issueId');
  optionalString(node, 'orderBy');
  optionalString(node, 'orderDirection');
  optionalString(node, 'status');
  optionalString(node, 'searchQuery');
  optionalBoolean(node, 'withAggregations');
  optionalBoolean(node, 'withFirstEvent');
  optionalBoolean(node, 'withLastEvent');
  optionalBoolean(node, 'filterTestAccounts');
  optionalInteger(node, 'volumeResolution');
  optionalInteger(node, 'limit');
  optionalInteger(node, 'offset');
  optionalObject(node, 'dateRange');
  optionalObject(node, 'modifiers');
  if (n.orderBy !== undefined && !ORDERS.includes(n.orderBy)) {
    throw validationErrorOf(`orderBy: must be one of ${ORDERS.join(', ')}`, 'orderBy');
  }
  if (n.orderDirection !== undefined && n.orderDirection !== 'ASC' && n.orderDirection !== 'DESC') {
    throw validationErrorOf('orderDirection: must be ASC or DESC', 'orderDirection');
  }
  if (n.status !== undefined && n.status !== 'all') checkStatus(n.status);
  if (n.assignee) checkAssignee(n.assignee);
  if ((n.volumeResolution ?? 0) < 0 || (n.volumeResolution ?? 0) > MAX_BUCKETS) {
    throw validationErrorOf(`volumeResolution: between 0 and ${MAX_BUCKETS}`, 'volumeResolution');
  }
  if ((n.searchQuery ?? '').length > MAX_SEARCH) {
    throw validationErrorOf(`searchQuery: at most ${MAX_SEARCH} characters`, 'searchQuery');
  }
  checkBounds({
    after: n.dateRange?.date_from ?? undefined,
    before: n.dateRange?.date_to ?? undefined,
  });
  return node;
}

const and = (exprs: Expr[]): Expr => (exprs.length === 0 ? constant(true) : andAll(...exprs));

function filters(node: ErrorTrackingNode, ctx: RunnerContext): Expr {
  const out: Expr[] = [];
  if (node.filterGroup) {
    const props = at('filterGroup', () => propertiesToExpr(node.filterGroup, 'events'));
    if (!(props.node === 'Constant' && props.value === true)) out.push(props);
  }
  if (node.filterTestAccounts && ctx.testAccountFilters) {
    out.push(propertiesToExpr(ctx.testAccountFilters as AnyProperties, 'events'));
  }
  return and(out);
}

/** PostHog searches the exception's types, messages, files and functions, token by token. */
function searchExpr(search: string): Expr {
  const tokens = search.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 10);
  if (tokens.length === 0) return constant(true);
  const text =
    "lower(concat(toString(properties.$exception_types), ' ', toString(properties.$exception_values), ' ', toString(properties.$exception_sources), ' ', toString(properties.$exception_functions)))";
  const parts = tokens.map((_t, i) => `position(${text}, {t${i}}) > 0`).join(' AND ');
  const ast = parseSelect(`SELECT ${parts}`) as SelectQuery;
  return replaceTokens((ast.select as Expr[])[0] as Expr, tokens);
}

function replaceTokens(e: Expr, tokens: string[]): Expr {
  // The tokens go in as constants, never as HogQL text.
  const json = JSON.stringify(e, (_k, v) => {
    if (v && typeof v === 'object' && v.node === 'Placeholder' && v.expr?.node === 'Field') {
      const name = String(v.expr.chain[0]);
      if (/^t\d+$/.test(name)) return { node: 'Constant', value: tokens[Number(name.slice(1))] };
    }
    return v;
  });
  return JSON.parse(json) as Expr;
}

interface Group {
  fingerprint: string;
  occurrences: number;
  sessions: number;
  users: number;
  firstSeen: string;
  lastSeen: string;
  library: string | null;
  matched: number;
}

interface IssueRow {
  issue: IssueRecord;
  fingerprints: string[];
  occurrences: number;
  sessions: number;
  users: number;
  firstSeen: string;
  lastSeen: string;
  library: string | null;
  matched: boolean;
}

function rangeOf(node: ErrorTrackingNode, ctx: RunnerContext): { from: DateTime; to: DateTime } {
  const opts = { timezone: ctx.timezone, now: ctx.now };
  const to = node.dateRange?.date_to
    ? parseDate(node.dateRange.date_to, { ...opts, attr: 'date_to' }).at
    : DateTime.fromJSDate(ctx.now);
  const fromText = node.dateRange?.date_from ?? '-7d';
  const from =
    fromText === 'all' ? to.minus({ days: 90 }) : parseDate(fromText, { ...opts, attr: 'date_from' }).at;
  return { from, to };
}

/**
 * ErrorTrackingQuery: issues with their occurrences, sessions, users, first and last seen in the
 * range, and a volume histogram, as PostHog's frontend and MCP tools read them. Events are grouped
 * by fingerprint, and fingerprints mapped to issues through the metadata store, so a merge or a
 * split applies to events already stored. Users and sessions of an issue with several
 * fingerprints are summed over them (an upper bound).
 */
async function run(node: ErrorTrackingNode, ctx: RunnerContext): Promise<QueryResult> {
  const meta = ctx.meta;
  if (!meta) throw new Error('ErrorTrackingQuery needs the metadata store');
  const limit = Math.min(Math.max(node.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  const offset = Math.max(node.offset ?? 0, 0);
  const { from, to } = rangeOf(node, ctx);
  const bounds = and(
    timeBounds('timestamp', { after: from.toISO() ?? undefined, before: to.toISO() ?? undefined }, ctx),
  );
  const where: Expr[] = [filters(node, ctx)];
  if (node.issueId) {
    const fps = await fingerprintsOfIssues(meta, ctx.teamId, [node.issueId]);
    if (fps.length === 0) {
      return queryResponse(
        { results: [], columns: null },
        { seconds: 0, modifiers: node.modifiers },
        {
          hasMore: false,
          limit,
          offset,
        },
      );
    }
    const inList = parseSelect('SELECT properties.$exception_fingerprint IN {fps}') as SelectQuery;
    where.push(
      replaceList(
        (inList.select as Expr[])[0] as Expr,
        fps.map((f) => f.fingerprint),
      ),
    );
  }
  const search = node.searchQuery?.trim() ?? '';
  const groups = await runSelect(parseSelect(GROUPS) as SelectQuery, ctx, {
    modifiers: node.modifiers,
    exprs: { bounds, filters: and(where), search: search ? searchExpr(search) : constant(true) },
  });
  const rows: Group[] = groups.rows.map((r) => ({
    fingerprint: String(r[0]),
    occurrences: Number(r[1]),
    sessions: Number(r[2]),
    users: Number(r[3]),
    firstSeen: String(isoDateTime(r[4], groups.timezone)),
    lastSeen: String(isoDateTime(r[5], groups.timezone)),
    library: r[6] === null || r[6] === undefined ? null : String(r[6]),
    matched: Number(r[7]),
  }));
  const map = await fingerprintMap(
    meta,
    ctx.teamId,
    rows.map((g) => g.fingerprint),
  );
  const byIssue = new Map<string, Omit<IssueRow, 'issue'>>();
  for (const g of rows) {
    const id = map.get(g.fingerprint);
    if (!id) continue;
    const cur = byIssue.get(id);
    if (!cur) {
      byIssue.set(id, { ...g, fingerprints: [g.fingerprint], matched: g.matched > 0 });
      continue;
    }
    cur.fingerprints.push(g.fingerprint);
    cur.occurrences += g.occurrences;
    cur.sessions += g.sessions;
    cur.users += g.users;
    if (g.firstSeen < cur.firstSeen) cur.firstSeen = g.firstSeen;
    if (g.lastSeen > cur.lastSeen) {
      cur.lastSeen = g.lastSeen;
      cur.library = g.library;
    }
    cur.matched ||= g.matched > 0;
  }
  const issues = await issuesByIds(meta, ctx.teamId, [...byIssue.keys()]);
  const lowered = search.toLowerCase();
  let list: IssueRow[] = issues
    .map((issue) => ({ issue, ...(byIssue.get(issue.id) as Omit<IssueRow, 'issue'>) }))
    .filter((r) => {
      // No status is every status, as PostHog's runner filters only when one is named.
      const status = node.status ?? 'all';
      if (!node.issueId && status !== 'all' && r.issue.status !== status) return false;
      if (node.assignee) {
        const a = r.issue.assignee;
        if (!a || a.type !== node.assignee.type || String(a.id) !== String(node.assignee.id)) return false;
      }
      if (search) {
        const own = `${r.issue.name ?? ''} ${r.issue.description ?? ''}`.toLowerCase();
        if (!r.matched && !own.includes(lowered)) return false;
      }
      return true;
    });
  const key = node.orderBy ?? 'last_seen';
  const sign = (node.orderDirection ?? 'DESC') === 'ASC' ? 1 : -1;
  const value = (r: IssueRow): number | string =>
    key === 'last_seen' ? r.lastSeen : key === 'first_seen' ? r.firstSeen : r[key];
  list.sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    return x < y ? -sign : x > y ? sign : a.issue.id < b.issue.id ? -1 : 1;
  });
  const hasMore = list.length > offset + limit;
  list = list.slice(offset, offset + limit);

  const resolution = node.volumeResolution ?? 0;
  const buckets = new Map<string, number[]>();
  const seconds = Math.max(1, Math.ceil(to.diff(from, 'seconds').seconds));
  const width = resolution > 0 ? Math.max(1, Math.ceil(seconds / resolution)) : 0;
  const fps = list.flatMap((r) => r.fingerprints);
  if ((node.withAggregations ?? true) && resolution > 0 && fps.length > 0) {
    const counts = await runSelect(parseSelect(BUCKETS) as SelectQuery, ctx, {
      modifiers: node.modifiers,
      values: { from: Math.floor(from.toSeconds()), width, fingerprints: fps },
      exprs: { bounds, filters: filters(node, ctx) },
    });
    for (const [fp, bucket, n] of counts.rows) {
      const id = map.get(String(fp));
      if (!id) continue;
      const arr = buckets.get(id) ?? new Array<number>(resolution).fill(0);
      const i = Math.min(Math.max(Number(bucket), 0), resolution - 1);
      arr[i] = (arr[i] ?? 0) + Number(n);
      buckets.set(id, arr);
    }
  }

  const wantFirst = node.withFirstEvent || Boolean(node.issueId);
  const wantLast = node.withLastEvent || Boolean(node.issueId);
  const results = [];
  for (const r of list) {
    const volume = resolution > 0 ? (buckets.get(r.issue.id) ?? new Array<number>(resolution).fill(0)) : [];
    const out: Record<string, unknown> = {
      id: r.issue.id,
      name: r.issue.name,
      description: r.issue.description,
      assignee: r.issue.assignee,
      status: r.issue.status,
      first_seen: r.firstSeen,
      last_seen: r.lastSeen,
      library: r.library,
      external_issues: [],
    };
    if (node.withAggregations ?? true) {
      out.aggregations = {
        occurrences: r.occurrences,
        sessions: r.sessions,
        users: r.users,
        volumeRange: volume,
        volume_buckets: volume.map((value, i) => ({
          label: DateTime.fromSeconds(Math.floor(from.toSeconds()) + i * width, { zone: 'utc' }).toISO(),
          value,
        })),
      };
    }
    if (wantFirst) out.first_event = await sample(r.fingerprints, 'ASC', bounds, ctx, node);
    if (wantLast) out.last_event = await sample(r.fingerprints, 'DESC', bounds, ctx, node);
    results.push(out);
  }
  return queryResponse(
    { results, columns: null, hogql: groups.hogql },
    { seconds: groups.seconds, modifiers: node.modifiers },
    { hasMore, limit, offset },
  );
}

function replaceList(e: Expr, values: string[]): Expr {
  const json = JSON.stringify(e, (_k, v) => {
    if (v && typeof v === 'object' && v.node === 'Placeholder') {
      return { node: 'Tuple', exprs: values.map((value) => ({ node: 'Constant', value })) };
    }
    return v;
  });
  return JSON.parse(json) as Expr;
}

/** The issue's sample exception: its first (or latest) event in the range, properties as JSON text. */
async function sample(
  fingerprints: string[],
  direction: 'ASC' | 'DESC',
  bounds: Expr,
  ctx: RunnerContext,
  node: ErrorTrackingNode,
) {
  const q = parseSelect(SAMPLE.replace('{direction}', direction)) as SelectQuery;
  const run = await runSelect(q, ctx, {
    modifiers: node.modifiers,
    values: { fingerprints },
    exprs: { bounds },
  });
  const r = run.rows[0];
  if (!r) return null;
  return {
    uuid: String(r[0]),
    timestamp: String(isoDateTime(r[1], run.timezone)),
    properties: typeof r[2] === 'string' ? r[2] : JSON.stringify(r[2]),
  };
}

export const errorTrackingRunners: Record<string, QueryRunner> = {
  ErrorTrackingQuery: {
    check,
    run: (node, ctx) => run(node as ErrorTrackingNode, ctx),
    staleness: { interval: 'minute' },
    // Issue statuses, names and merges live in the metadata store: a change there is a new key.
    metaState: (deps, teamId) => issuesState(deps.meta, teamId),
  },
  ErrorTrackingIssueCorrelationQuery: correlationRunner,
};
