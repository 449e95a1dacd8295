import { parseExpr } from './expressions.js';
import { parseExprList } from './lists.js';
import type { Node, Parser } from './parser.js';
import { T } from './tokens.js';

/**
 * `*` and `t.*` (the cursor is on '*' or on the '.' before it, `chain` holds the qualifier), with
 * an optional EXCLUDE (…), which turns the star into a ColumnsExpr.
 */
export function parseStar(p: Parser, first: number, chain: string[]): Node {
  if (p.at(T.DOT)) p.pos++;
  p.expect(T.ASTERISK, "'*'");
  if (p.at(T.EXCLUDE) && p.peek() === T.LPAREN) {
    const exclude = parseExclude(p);
    return p.span({ node: 'ColumnsExpr', all_columns: true, exclude }, first);
  }
  return p.span({ node: 'Field', chain: [...chain, '*'] }, first);
}

/** `* COLUMNS(…)`: spreads the columns into the surrounding list. */
export function parseSpread(p: Parser): Node {
  const first = p.pos++;
  const expr = parseColumns(p);
  // the reference AST keeps the span on the spread only
  delete expr.start;
  delete expr.end;
  return p.span({ node: 'SpreadExpr', expr }, first);
}

/** COLUMNS('regex'), COLUMNS(a, b), COLUMNS(* EXCLUDE (…) REPLACE (…)) and the like. */
export function parseColumns(p: Parser): Node {
  const first = p.pos;
  p.pos += 2;
  if (p.at(T.STRING) && p.peek() === T.RPAREN) {
    const regex = p.stringAt(p.pos);
    p.pos += 2;
    return p.span({ node: 'ColumnsExpr', regex }, first);
  }
  if (p.at(T.ASTERISK) && (p.peek() === T.REPLACE || (p.peek() === T.EXCLUDE && replaceAfterExclude(p)))) {
    p.pos++;
    const node = parseStarModifiers(p, first);
    p.expect(T.RPAREN, "')'");
    return p.span(node, first);
  }
  const columns = parseExprList(p);
  p.expect(T.RPAREN, "')'");
  return p.span({ node: 'ColumnsExpr', columns }, first);
}

/** `(* EXCLUDE (…) REPLACE (…))` and `(* REPLACE (…))`; the cursor is on '('. */
export function parseColumnsParenthesized(p: Parser): Node {
  const first = p.pos;
  p.pos += 2;
  const node = parseStarModifiers(p, first);
  p.expect(T.RPAREN, "')'");
  return p.span(node, first);
}

/** [EXCLUDE (names)] REPLACE (expr AS name, …) after a '*'. */
function parseStarModifiers(p: Parser, first: number): Node {
  const node: Node = { node: 'ColumnsExpr', all_columns: true };
  if (p.at(T.EXCLUDE)) node.exclude = parseExclude(p);
  p.expect(T.REPLACE, 'REPLACE');
  p.expect(T.LPAREN, "'('");
  const replace: Record<string, Node> = {};
  for (;;) {
    const expr = parseExpr(p, 2);
    p.expect(T.AS, 'AS');
    replace[p.identifier()] = expr;
    if (!p.accept(T.COMMA)) break;
  }
  p.expect(T.RPAREN, "')'");
  node.replace = replace;
  return p.span(node, first);
}

/** EXCLUDE (a, b.c, …): dotted names joined with '.'. */
function parseExclude(p: Parser): string[] {
  p.pos += 2;
  const names: string[] = [];
  for (;;) {
    let name = p.identifier();
    while (p.at(T.DOT)) {
      p.pos++;
      name += `.${p.identifier()}`;
    }
    names.push(name);
    if (!p.accept(T.COMMA) || p.at(T.RPAREN)) break;
  }
  p.expect(T.RPAREN, "')'");
  return names;
}

/** After `* EXCLUDE`: is the (…) followed by REPLACE? */
function replaceAfterExclude(p: Parser): boolean {
  let depth = 0;
  for (let i = p.pos + 2; i < p.type.length; i++) {
    const t = p.type[i];
    if (t === T.LPAREN) depth++;
    else if (t === T.RPAREN && --depth === 0) return p.type[i + 1] === T.REPLACE;
    else if (t === T.EOF) return false;
  }
  return false;
}
