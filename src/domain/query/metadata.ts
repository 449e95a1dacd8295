import { ApiError } from '../../errors.js';
import type { AnySelect, Expr, SelectQuery } from '../../hogql/ast.js';
import { compileSelect } from '../../hogql/compile.js';
import { HogQLError, isExposed } from '../../hogql/errors.js';
import { parseExpr, parseSelect } from '../../hogql/parse.js';
import type { RunnerContext } from './context.js';
import { checkHogQLNode, type HogQLQueryNode, hogqlCompileOptions } from './hogql-runner.js';
import type { QueryNode } from './kinds.js';

/**
 * HogQLMetadata: is this HogQL valid for the project, and if not, where is it wrong? PostHog's web
 * app asks this while the user types; the answer lists errors with code point offsets into the
 * text (`start`, `end`), which an editor underlines. Nothing runs on the engine.
 */
export interface HogQLMetadataNode {
  kind: 'HogQLMetadata';
  language: 'hogQL' | 'hogQLExpr';
  query: string;
  sourceQuery?: { kind?: unknown } | null;
  filters?: HogQLQueryNode['filters'];
  variables?: HogQLQueryNode['variables'];
  values?: HogQLQueryNode['values'];
  modifiers?: HogQLQueryNode['modifiers'];
}

export interface HogQLNotice {
  message: string;
  start?: number;
  end?: number;
  fix?: string;
}

const LANGUAGES = new Set(['hogQL', 'hogQLExpr']);
/** PostHog languages Burrow knows but does not compile (Hog programs run in PostHog's CDP). */
const HOG_LANGUAGES = new Set(['hog', 'hogTemplate']);

const invalid = (detail: string, attr: string) =>
  new ApiError(400, 'validation_error', 'invalid_input', detail, attr);

export function checkMetadataNode(node: QueryNode): QueryNode {
  const language = node.language;
  if (language === undefined || language === null)
    throw new ApiError(
      400,
      'validation_error',
      'parse_error',
      '1 validation error for QueryRequest\nquery.HogQLMetadata.language: Field required',
      'language',
    );
  if (typeof language !== 'string' || !LANGUAGES.has(language)) {
    const detail = HOG_LANGUAGES.has(String(language))
      ? `Burrow checks HogQL only: language '${String(language)}' is not supported; use 'hogQL' or 'hogQLExpr'.`
      : "language must be one of 'hogQL', 'hogQLExpr'.";
    throw invalid(detail, 'language');
  }
  if (typeof node.query !== 'string')
    throw new ApiError(
      400,
      'validation_error',
      'parse_error',
      '1 validation error for QueryRequest\nquery.HogQLMetadata.query: Field required',
      'query',
    );
  // An expression is checked against the events table, which is what an EventsQuery reads.
  const source = node.sourceQuery as { kind?: unknown } | null | undefined;
  if (source !== undefined && source !== null && source.kind !== 'EventsQuery')
    throw invalid('Only an EventsQuery can be the sourceQuery of an expression.', 'sourceQuery');
  // Placeholder values, variables and filters have HogQLQuery's shapes (an empty query is only
  // invalid HogQL, answered as such).
  checkHogQLNode({ ...node, query: 'SELECT 1' });
  return node;
}

/** An error as PostHog lists it: exposed HogQL errors with their span, others by class only. */
function notice(err: unknown): HogQLNotice {
  if (isExposed(err)) {
    const out: HogQLNotice = { message: err.message };
    if (err.start !== undefined && err.end !== undefined) {
      out.start = Math.min(err.start, err.end);
      out.end = Math.max(err.start, err.end);
    } else if (err.start !== undefined) {
      out.start = err.start;
      out.end = err.start;
    }
    return out;
  }
  // Internal messages can name internals; PostHog shows only the class outside DEBUG.
  const name = err instanceof HogQLError || err instanceof Error ? err.name : 'Error';
  return { message: `Unexpected ${name}` };
}

/** A SELECT with the expression as its only column, over events (positions kept from the text). */
function selectOf(expr: Expr): AnySelect {
  // The template's own positions are dropped: only the user's text may be pointed at.
  const template = JSON.parse(
    JSON.stringify(parseSelect('SELECT 1 FROM events'), (key, value) =>
      key === 'start' || key === 'end' ? undefined : value,
    ),
  ) as SelectQuery;
  template.select = [expr];
  return template;
}

/** Whether every column of every SELECT in the query has an alias (it could be saved as a view). */
function isValidView(ast: AnySelect): boolean {
  if (ast.node === 'SelectQuery') return ast.select.every((c) => c.node === 'Alias');
  return [ast.initial_select_query, ...ast.subsequent_select_queries.map((s) => s.select_query)].every((q) =>
    isValidView(q as AnySelect),
  );
}

export function hogqlMetadata(node: HogQLMetadataNode, ctx: RunnerContext): Record<string, unknown> {
  const response: Record<string, unknown> = {
    isValid: true,
    query: node.query,
    errors: [] as HogQLNotice[],
    warnings: [],
    notices: [],
  };
  if (node.language === 'hogQL') response.isValidView = false;
  try {
    const options = hogqlCompileOptions(node, ctx);
    if (node.language === 'hogQLExpr') {
      compileSelect(selectOf(parseExpr(node.query)), options);
    } else {
      const ast = parseSelect(node.query);
      response.isValidView = isValidView(ast);
      compileSelect(ast, options);
    }
  } catch (err) {
    // A malformed request (bad filters or variables) is still the caller's 400.
    if (err instanceof ApiError) throw err;
    response.isValid = false;
    response.errors = [notice(err)];
  }
  return response;
}
