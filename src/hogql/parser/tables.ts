import { parseExpr } from './expressions.js';
import { parseExprList } from './lists.js';
import { atNumber, parseNumber } from './literals.js';
import type { Node, Parser } from './parser.js';
import { parsePivot, parseUnpivot } from './pivot.js';
import { parseSelectSet } from './select-set.js';
import { parseTag } from './tags.js';
import { isIdentifierLike, T } from './tokens.js';

/** Keywords that may follow a table as its alias without AS. */
const BARE_ALIAS_KEYWORDS: ReadonlySet<number> = new Set([T.DATE, T.FIRST, T.ID, T.KEY]);

/**
 * A table in FROM with its FINAL and SAMPLE. Aliases and table functions already produce a
 * JoinExpr (spanning just the table and alias); anything else is wrapped in one here.
 */
export function parseTableExpr(p: Parser): Node {
  const first = p.pos;
  const table = parseAliasedTable(p);
  const finalKeyword = p.accept(T.FINAL);
  const sample = p.at(T.SAMPLE) ? parseSample(p) : null;
  if (table.node === 'JoinExpr') {
    table.table_final = finalKeyword ? true : null;
    table.sample = sample;
    return table;
  }
  const node = {
    node: 'JoinExpr',
    table,
    alias: null,
    table_final: finalKeyword ? true : null,
    sample,
    next_join: null,
  };
  return p.span(node, first);
}

/** tableExpr with any number of aliases and PIVOT / UNPIVOT suffixes. */
function parseAliasedTable(p: Parser): Node {
  const first = p.pos;
  let table = parseTable(p);
  for (;;) {
    if (p.at(T.PIVOT) && p.peek() === T.LPAREN) {
      table = parsePivot(p, table, first);
      continue;
    }
    if (p.at(T.UNPIVOT)) {
      table = parseUnpivot(p, table, first);
      continue;
    }
    let alias: string;
    if (p.accept(T.AS)) alias = p.identifier();
    else if (p.at(T.IDENT) || p.at(T.QUOTED_IDENT) || BARE_ALIAS_KEYWORDS.has(p.t))
      alias = p.identifierAt(p.pos++);
    else return table;
    p.checkAlias(alias, p.pos - 1);
    const columnAliases = p.at(T.LPAREN) ? parseColumnAliases(p) : null;
    if (table.node === 'JoinExpr') {
      table.alias = alias;
      table.column_aliases = columnAliases;
    } else {
      table = p.span(
        { node: 'JoinExpr', table, alias, column_aliases: columnAliases, next_join: null },
        first,
      );
    }
  }
}

function parseTable(p: Parser): Node {
  const first = p.pos;
  if (p.at(T.LPAREN)) {
    p.pos++;
    if (p.at(T.VALUES)) return parseValues(p);
    const query = parseSelectSet(p);
    p.expect(T.RPAREN, "')'");
    return query;
  }
  if (p.at(T.LBRACE)) {
    p.pos++;
    const expr = parseExpr(p);
    p.expect(T.RBRACE, "'}'");
    return p.span({ node: 'Placeholder', expr }, first);
  }
  if (p.at(T.TAG_OPEN)) return parseTag(p);
  const chain = [p.identifier()];
  if (p.at(T.LPAREN)) {
    p.pos++;
    const args = p.at(T.RPAREN) ? [] : parseExprList(p);
    p.expect(T.RPAREN, "')'");
    const table = { node: 'Field', chain };
    return p.span({ node: 'JoinExpr', table, table_args: args, alias: null, next_join: null }, first);
  }
  while (p.at(T.DOT)) {
    p.pos++;
    chain.push(p.identifier());
  }
  return p.span({ node: 'Field', chain }, first);
}

/** (VALUES (a, b), (c, d)); the cursor is on VALUES. */
function parseValues(p: Parser): Node {
  const first = p.pos++;
  const rows: Node[][] = [];
  do {
    p.expect(T.LPAREN, "'('");
    const row = [parseExpr(p)];
    while (p.accept(T.COMMA)) row.push(parseExpr(p));
    p.expect(T.RPAREN, "')'");
    rows.push(row);
  } while (p.accept(T.COMMA));
  const node = p.span({ node: 'ValuesQuery', rows }, first);
  p.expect(T.RPAREN, "')'");
  return node;
}

function parseColumnAliases(p: Parser): string[] {
  p.pos++;
  const names = [p.identifier()];
  while (p.accept(T.COMMA)) names.push(p.identifier());
  p.expect(T.RPAREN, "')'");
  return names;
}

/** SAMPLE ratio [OFFSET ratio], a ratio being n, n/m or a placeholder. */
export function parseSample(p: Parser): Node {
  const first = p.pos++;
  const sampleValue = parseRatio(p);
  if (p.at(T.PERCENT)) throw p.unexpected();
  const offsetValue = p.accept(T.OFFSET) ? parseRatio(p) : null;
  // SAMPLE … (column): accepted and, as in the reference AST, dropped
  if (p.at(T.LPAREN) && isIdentifierLike(p.peek()) && p.peek(2) === T.RPAREN) p.pos += 3;
  return p.span({ node: 'SampleExpr', sample_value: sampleValue, offset_value: offsetValue }, first);
}

function parseRatio(p: Parser): Node {
  const first = p.pos;
  if (p.at(T.LBRACE)) {
    p.pos++;
    const expr = parseExpr(p);
    p.expect(T.RBRACE, "'}'");
    return p.span({ node: 'Placeholder', expr }, first);
  }
  if (!atNumber(p)) throw p.unexpected('a sample ratio');
  const left = parseNumber(p);
  let right: Node | null = null;
  if (p.accept(T.SLASH)) {
    if (!atNumber(p)) throw p.unexpected('a number');
    right = parseNumber(p);
  }
  return p.span({ node: 'RatioExpr', left, right }, first);
}
