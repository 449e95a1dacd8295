import { validationError } from '../../errors.js';
import type { Expr, JoinExpr, SelectQuery } from '../../hogql/ast.js';
import { compileSelect } from '../../hogql/compile.js';
import { isExposed } from '../../hogql/errors.js';
import { parseSelect } from '../../hogql/parse.js';
import { printHogQL, printSelectHogQL } from '../../hogql/printer/hogql.js';
import { replaceNodes } from '../../hogql/visit.js';

/**
 * `hogql_query` of a batch export: validated with the HogQL compiler under PostHog's rules (one
 * SELECT from events, no joins, subqueries or CTEs) and described by the derived `schema`.
 * Runs read it through sources/hogql.ts.
 */
export interface HogQLExport {
  hogqlQuery: string;
  schema: Record<string, unknown> | null;
}

const invalid = (detail: string) => validationError(detail, 'hogql_query');

function checkShape(q: SelectQuery): void {
  if (q.ctes?.length) throw invalid('CTEs are not supported');
  const from: JoinExpr | null | undefined = q.select_from;
  if (!from) throw invalid('Query must SELECT FROM events');
  if (from.next_join) throw invalid('JOINs are not supported');
  const table = from.table;
  if (table && (table.node === 'SelectQuery' || table.node === 'SelectSetQuery'))
    throw invalid('Subqueries are not supported');
  if (!(table?.node === 'Field' && table.chain.length === 1 && table.chain[0] === 'events')) {
    throw invalid('Query must only SELECT FROM events');
  }
  let nested = false;
  for (const item of q.select) {
    replaceNodes(item, (n) => {
      if (n.node === 'SelectQuery' || n.node === 'SelectSetQuery') nested = true;
      return undefined;
    });
  }
  if (nested) throw invalid('Subqueries in SELECT expressions are not supported');
}

/** The exported column for a SELECT item: its alias, a field's last name, else the expression. */
export function columnName(item: Expr): string {
  if (item.node === 'Alias') return item.alias;
  return item.node === 'Field' ? String(item.chain[item.chain.length - 1]) : printHogQL(item);
}

export function validateHogQLQuery(text: unknown): HogQLExport | null {
  if (text === null || text === undefined) return null;
  if (typeof text !== 'string') throw validationError('Not a valid string.', 'hogql_query', 'invalid');
  const trimmed = text.trim();
  if (trimmed === '') return null;
  let q: ReturnType<typeof parseSelect>;
  try {
    q = parseSelect(trimmed);
  } catch {
    throw invalid('Failed to parse query');
  }
  if (q.node === 'SelectSetQuery') throw invalid('UNIONs are not supported');
  checkShape(q);
  try {
    compileSelect(q, { teamId: 0, timezone: 'UTC', weekStartDay: 0, table: (t) => t, defaultLimit: null });
  } catch (err) {
    if (isExposed(err)) throw invalid(`Invalid HogQL query: ${err.message}`);
    throw invalid('Unsupported HogQL query');
  }
  const fields = q.select.map((item: Expr) => ({
    expression: printHogQL(item.node === 'Alias' ? item.expr : item),
    alias: columnName(item),
  }));
  const hogqlQuery = printSelectHogQL(q);
  return { hogqlQuery, schema: { fields, values: {}, hogql_query: hogqlQuery } };
}

/** Parses a stored (already validated) query: the SELECT a run exports. */
export function storedQuery(text: string): SelectQuery {
  const q = parseSelect(text);
  if (q.node !== 'SelectQuery') throw new Error('A batch export query must be one SELECT');
  checkShape(q);
  return q;
}
