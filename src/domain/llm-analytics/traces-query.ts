import { ApiError } from '../../errors.js';
import { and as andAll, compare, constant, type Expr, field, type SelectQuery } from '../../hogql/ast.js';
import { parseSelect } from '../../hogql/parse.js';
import { type AnyProperties, at, propertiesToExpr } from '../../hogql/property-filters.js';
import type { QueryResult, RunnerContext } from '../query/context.js';
import type { QueryNode } from '../query/kinds.js';
import { personDistinctIdsFilter } from '../query/list-node.js';
import {
  optionalBoolean,
  optionalInteger,
  optionalObject,
  optionalProperties,
  optionalString,
} from '../query/node-checks.js';
import { personsByDistinctId } from '../query/persons-lookup.js';
import { queryResponse } from '../query/response.js';
import type { QueryRunner } from '../query/run.js';
import { runSelect } from '../query/run-select.js';
import { checkBounds, timeBounds } from '../query/time-bounds.js';
import { isoDateTime, parseJsonObject } from '../query/values.js';

/** PostHog's `TracesQuery` and `TraceQuery` nodes (frontend/src/queries/schema/schema-general.ts). */
interface TracesNode extends QueryNode {
  dateRange?: { date_from?: string | null; date_to?: string | null };
  limit?: number;
  offset?: number;
  properties?: AnyProperties;
  filterTestAccounts?: boolean;
  personId?: string;
  traceId?: string;
  modifiers?: Record<string, unknown>;
}

const AI_EVENTS =
  "('$ai_generation', '$ai_span', '$ai_embedding', '$ai_trace', '$ai_metric', '$ai_feedback')";
const PRICED = "event IN ('$ai_generation', '$ai_embedding')";

/**
 * One row per trace, as PostHog's traces runner sums them: tokens and costs over generations and
 * embeddings; latency the `$ai_trace` event's own when it has one, else the generations' sum; name
 * and input/output state from the `$ai_trace` event (or the first span naming one).
 */
const TRACES = `
  SELECT
    properties.$ai_trace_id AS id,
    min(timestamp) AS created_at,
    argMin(distinct_id, timestamp) AS first_distinct_id,
    if(countIf(event = '$ai_trace' AND isNotNull(properties.$ai_latency)) > 0,
       maxIf(toFloat(properties.$ai_latency), event = '$ai_trace'),
       sumIf(toFloat(properties.$ai_latency), event = '$ai_generation')) AS total_latency,
    sumIf(toFloat(properties.$ai_input_tokens), ${PRICED}) AS input_tokens,
    sumIf(toFloat(properties.$ai_output_tokens), ${PRICED}) AS output_tokens,
    sumIf(toFloat(properties.$ai_input_cost_usd), ${PRICED}) AS input_cost,
    sumIf(toFloat(properties.$ai_output_cost_usd), ${PRICED}) AS output_cost,
    sumIf(toFloat(properties.$ai_total_cost_usd), ${PRICED}) AS total_cost,
    argMinIf(properties.$ai_input_state, timestamp, event = '$ai_trace') AS input_state,
    argMinIf(properties.$ai_output_state, timestamp, event = '$ai_trace') AS output_state,
    coalesce(argMinIf(coalesce(properties.$ai_span_name, properties.$ai_trace_name), timestamp, event = '$ai_trace'),
             argMinIf(properties.$ai_trace_name, timestamp, isNotNull(properties.$ai_trace_name))) AS trace_name,
    countIf(properties.$ai_is_error = 'true' OR toFloat(properties.$ai_http_status) >= 400) AS error_count,
    argMinIf(properties.$ai_session_id, timestamp, notEmpty(toString(properties.$ai_session_id))) AS ai_session_id,
    argMin(person_id, timestamp) AS first_person_id
  FROM events
  WHERE event IN ${AI_EVENTS} AND properties.$ai_trace_id IN (
    SELECT properties.$ai_trace_id FROM events
    WHERE event IN ${AI_EVENTS} AND notEmpty(toString(properties.$ai_trace_id)) AND {filters}
  ) AND {bounds}
  GROUP BY id
  ORDER BY created_at DESC, id DESC
  LIMIT {limit} OFFSET {offset}`;

const TRACE_EVENTS = `
  SELECT uuid, event, timestamp, properties
  FROM events
  WHERE event IN ${AI_EVENTS} AND properties.$ai_trace_id = {traceId} AND {bounds}
  ORDER BY timestamp, uuid
  LIMIT 10000`;

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function check(node: QueryNode): QueryNode {
  optionalProperties(node, 'properties');
  optionalBoolean(node, 'filterTestAccounts');
  optionalInteger(node, 'limit');
  optionalInteger(node, 'offset');
  optionalObject(node, 'modifiers');
  optionalObject(node, 'dateRange');
  optionalString(node, 'personId');
  const range = (node.dateRange ?? {}) as { date_from?: unknown; date_to?: unknown };
  checkBounds({
    after: typeof range.date_from === 'string' ? range.date_from : undefined,
    before: typeof range.date_to === 'string' ? range.date_to : undefined,
  });
  if (node.kind === 'TraceQuery' && (typeof node.traceId !== 'string' || node.traceId === '')) {
    throw new ApiError(
      400,
      'validation_error',
      'invalid_input',
      'TraceQuery.traceId: Field required',
      'traceId',
    );
  }
  return node;
}

const and = (exprs: Expr[]): Expr => (exprs.length === 0 ? constant(true) : andAll(...exprs));

/** `dateRange` as the list kinds' bounds (PostHog's traces default to the last 7 days). */
function bounds(node: TracesNode, ctx: RunnerContext, defaultFrom: string): Expr {
  return and(
    timeBounds(
      'timestamp',
      { after: node.dateRange?.date_from ?? defaultFrom, before: node.dateRange?.date_to ?? undefined },
      ctx,
    ),
  );
}

function filters(node: TracesNode, ctx: RunnerContext): Expr {
  const out: Expr[] = [];
  const props = at('properties', () => propertiesToExpr(node.properties, 'events'));
  if (!(props.node === 'Constant' && props.value === true)) out.push(props);
  if (node.personId) out.push(personDistinctIdsFilter(node.personId));
  if (node.filterTestAccounts && ctx.testAccountFilters) {
    out.push(propertiesToExpr(ctx.testAccountFilters as AnyProperties, 'events'));
  }
  return and(out);
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

async function traces(
  node: TracesNode,
  ctx: RunnerContext,
  limit: number,
  offset: number,
  traceFilter?: Expr,
) {
  const ast = parseSelect(TRACES) as SelectQuery;
  const run = await runSelect(ast, ctx, {
    modifiers: node.modifiers,
    exprs: {
      filters: traceFilter ? and([filters(node, ctx), traceFilter]) : filters(node, ctx),
      bounds: bounds(node, ctx, node.kind === 'TraceQuery' ? 'all' : '-7d'),
      limit: constant(limit),
      offset: constant(offset),
    },
  });
  const persons = await personsByDistinctId(
    run.rows.map((r) => String(r[2])),
    ctx,
  );
  const results = run.rows.map((r) => {
    const distinctId = String(r[2]);
    const person = persons.get(distinctId);
    return {
      id: r[0],
      createdAt: isoDateTime(r[1], run.timezone),
      person: person
        ? {
            uuid: person.uuid,
            distinct_id: distinctId,
            created_at: person.created_at,
            properties: person.properties,
          }
        : // No person row (personless events, or a deleted person): PostHog answers the event's
          // person id and its join's empty creation time, strings both, which typed clients need.
          {
            uuid: String(r[14] ?? ''),
            distinct_id: distinctId,
            created_at: '1970-01-01T00:00:00Z',
            properties: {},
          },
      totalLatency: num(r[3]),
      inputTokens: num(r[4]),
      outputTokens: num(r[5]),
      inputCost: num(r[6]),
      outputCost: num(r[7]),
      totalCost: num(r[8]),
      inputState: parseState(r[9]),
      outputState: parseState(r[10]),
      traceName: r[11] ?? null,
      errorCount: num(r[12]),
      // The `$ai_session_id` the SDK groups traces by (PostHog's LLMTrace.aiSessionId).
      aiSessionId: r[13] === null || r[13] === undefined || r[13] === '' ? null : String(r[13]),
      events: [] as unknown[],
    };
  });
  return { results, run };
}

function parseState(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** TracesQuery: a page of traces, newest first, with `hasMore` as PostHog's paginator. */
async function runTraces(node: TracesNode, ctx: RunnerContext): Promise<QueryResult> {
  const limit = Math.min(Math.max(node.limit ?? DEFAULT_LIMIT, 1), MAX_LIMIT);
  const offset = Math.max(node.offset ?? 0, 0);
  const { results, run } = await traces(node, ctx, limit + 1, offset);
  const hasMore = results.length > limit;
  return queryResponse(
    { results: results.slice(0, limit), columns: null, hogql: run.hogql },
    { seconds: run.seconds, modifiers: node.modifiers },
    { hasMore, limit, offset },
  );
}

/**
 * TraceQuery: one trace with its events (generations, spans, embeddings, the trace event) in time
 * order; the console builds the tree from `$ai_parent_id` / `$ai_span_id`.
 */
async function runTrace(node: TracesNode, ctx: RunnerContext): Promise<QueryResult> {
  const traceId = node.traceId as string;
  const one = compare('==', field('properties', '$ai_trace_id'), constant(traceId));
  const { results, run } = await traces(node, ctx, 1, 0, one);
  const trace = results[0];
  if (trace) {
    const events = await runSelect(parseSelect(TRACE_EVENTS) as SelectQuery, ctx, {
      modifiers: node.modifiers,
      values: { traceId },
      exprs: { bounds: bounds(node, ctx, 'all') },
    });
    trace.events = events.rows.map((r) => ({
      id: r[0],
      event: r[1],
      createdAt: isoDateTime(r[2], events.timezone),
      properties: parseJsonObject(r[3]),
    }));
  }
  return queryResponse(
    { results: trace ? [trace] : [], columns: null, hogql: run.hogql },
    { seconds: run.seconds, modifiers: node.modifiers },
  );
}

export const tracesRunners: Record<string, QueryRunner> = {
  TracesQuery: {
    check,
    run: (node, ctx) => runTraces(node as TracesNode, ctx),
    staleness: { interval: 'minute' },
  },
  TraceQuery: {
    check,
    run: (node, ctx) => runTrace(node as TracesNode, ctx),
    staleness: { interval: 'minute' },
  },
};
