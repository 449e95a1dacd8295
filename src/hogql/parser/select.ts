import { parseArrayJoin, parseGroupBy, parseLimits, parseWindowClause } from './clauses.js';
import { P, parseExpr } from './expressions.js';
import { parseJoinExpr } from './joins.js';
import { atListEnd } from './lists.js';
import { parseNumber } from './literals.js';
import { parseOrderList } from './order.js';
import type { Node, Parser } from './parser.js';
import { parseSample } from './tables.js';
import { T } from './tokens.js';

/** Keywords that may follow a column as its alias without AS. */
const IMPLICIT_ALIAS_KEYWORDS: ReadonlySet<number> = new Set([
  T.ASCENDING,
  T.COHORT,
  T.DATE,
  T.DESCENDING,
  T.FINAL,
  T.ID,
  T.RETURN,
  T.TOP,
  T.TOTALS,
]);

const atImplicitAlias = (p: Parser) =>
  p.at(T.IDENT) || p.at(T.QUOTED_IDENT) || IMPLICIT_ALIAS_KEYWORDS.has(p.t);

/** SELECT … with every clause; `ctes` come from a WITH already read, `first` is where it began. */
export function parseSelectStmt(p: Parser, ctes: Node[] | null, first: number): Node {
  p.expect(T.SELECT, 'SELECT');
  const query: Node = {
    node: 'SelectQuery',
    ctes,
    select: [],
    // `select distinct, x` and `select distinct group by …` select a column called "distinct"
    distinct: p.at(T.DISTINCT) && !distinctIsColumn(p) && p.accept(T.DISTINCT) ? true : null,
    select_from: null,
    where: null,
    prewhere: null,
    having: null,
    group_by: null,
    qualify: null,
  };
  if (p.at(T.TOP) && p.peek() === T.DECIMAL) {
    p.defer(p.unsupported('TOP is not supported, use LIMIT'));
    p.pos += 2;
    if (p.at(T.WITH) && p.peek() === T.TIES) p.pos += 2;
  }
  query.select = parseColumns(p);
  if (p.accept(T.FROM)) query.select_from = parseJoinExpr(p);
  if (atArrayJoin(p)) {
    if (query.select_from === null)
      p.defer(p.error('Using ARRAY JOIN without a FROM clause is not permitted'));
    parseArrayJoin(p, query);
  }
  if (p.accept(T.PREWHERE)) query.prewhere = parseExpr(p);
  if (p.accept(T.WHERE)) query.where = parseExpr(p);
  if (p.at(T.SAMPLE) || (p.at(T.USING) && p.peek() === T.SAMPLE)) skipSample(p);
  if (p.at(T.GROUP) && p.peek() === T.BY) parseGroupBy(p, query);
  // WITH CUBE / WITH ROLLUP / WITH TOTALS are accepted and, as in the reference AST, dropped
  while (p.at(T.WITH) && (p.peek() === T.CUBE || p.peek() === T.ROLLUP || p.peek() === T.TOTALS)) p.pos += 2;
  if (p.accept(T.HAVING)) query.having = parseExpr(p);
  if (p.accept(T.QUALIFY)) query.qualify = parseExpr(p);
  if (p.at(T.USING) && p.peek() === T.SAMPLE) skipSample(p);
  if (p.at(T.WINDOW)) query.window_exprs = parseWindowClause(p);
  if (p.at(T.ORDER) && p.peek() === T.BY) {
    p.pos += 2;
    query.order_by = parseOrderList(p);
    if (p.accept(T.INTERPOLATE)) query.interpolate = parseInterpolate(p);
  }
  parseLimits(p, query);
  if (p.at(T.SETTINGS)) parseSettings(p);
  return p.span(query, first);
}

/** SAMPLE after WHERE or QUALIFY: valid syntax that the reference AST does not support. */
function skipSample(p: Parser): void {
  p.defer(p.unsupported('SAMPLE is only supported after a table in FROM'));
  p.accept(T.USING);
  parseSample(p);
}

/** SETTINGS name = literal, …: parsed, then refused as the reference AST does. */
function parseSettings(p: Parser): void {
  p.defer(p.unsupported('SETTINGS is not supported in HogQL queries'));
  p.pos++;
  do {
    p.identifier();
    p.expect(T.EQ_SINGLE, "'='");
    if (p.at(T.STRING) || p.at(T.NULL)) p.pos++;
    else parseNumber(p);
  } while (p.accept(T.COMMA));
}

/** Tokens after which DISTINCT can only be a column: `select distinct is not null`. */
const AFTER_DISTINCT_COLUMN: ReadonlySet<number> = new Set([
  T.COMMA,
  T.FROM,
  T.EOF,
  T.RPAREN,
  T.IS,
  T.AND,
  T.OR,
  T.BETWEEN,
  T.LIKE,
  T.ILIKE,
  T.IN,
]);

function distinctIsColumn(p: Parser): boolean {
  if (AFTER_DISTINCT_COLUMN.has(p.peek())) return true;
  p.pos++;
  const clause = atListEnd(p);
  p.pos--;
  return clause;
}

function atArrayJoin(p: Parser): boolean {
  if (p.at(T.ARRAY)) return p.peek() === T.JOIN;
  return (p.at(T.LEFT) || p.at(T.INNER)) && p.peek() === T.ARRAY && p.peek(2) === T.JOIN;
}

/** The select list: `expr`, `expr alias`, `expr AS alias`, `alias: expr`, with a trailing comma. */
function parseColumns(p: Parser): Node[] {
  const columns: Node[] = [];
  for (;;) {
    columns.push(parseColumn(p));
    // a trailing comma before FROM wins over a function called "from"
    if (!p.accept(T.COMMA) || p.at(T.FROM) || atListEnd(p)) return columns;
  }
}

function parseColumn(p: Parser): Node {
  const first = p.pos;
  if (p.atIdentifier() && p.peek() === T.COLON) {
    const alias = p.identifier();
    p.checkAlias(alias, first);
    p.pos++;
    const expr = parseExpr(p);
    return p.span({ node: 'Alias', alias, expr }, first);
  }
  if (
    p.at(T.FROM) &&
    (p.peek() === T.IDENT || p.peek() === T.QUOTED_IDENT || IMPLICIT_ALIAS_KEYWORDS.has(p.peek()))
  ) {
    p.defer(p.error('Cannot use "from" before an implicit alias'));
    p.pos += 2;
    return p.span({ node: 'Field', chain: ['from'] }, first);
  }
  const expr = parseExpr(p);
  if (!atImplicitAlias(p)) return expr;
  const alias = p.identifierAt(p.pos++);
  p.checkAlias(alias, p.pos - 1);
  return p.span({ node: 'Alias', alias, expr }, first);
}

/** INTERPOLATE [(name [AS expr], …)] */
function parseInterpolate(p: Parser): Node[] {
  const out: Node[] = [];
  if (!p.accept(T.LPAREN)) return out;
  while (!p.at(T.RPAREN)) {
    const first = p.pos;
    const name = p.identifier();
    const expr = p.span({ node: 'Field', chain: [name] }, first);
    const node: Node = { node: 'InterpolateExpr', expr };
    if (p.accept(T.AS)) node.value = parseExpr(p, P.ALIAS + 1);
    out.push(p.span(node, first));
    if (!p.accept(T.COMMA)) break;
  }
  p.expect(T.RPAREN, "')'");
  return out;
}
