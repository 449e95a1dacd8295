import { parseExpr } from './expressions.js';
import type { Node, Parser } from './parser.js';
import { T } from './tokens.js';

/** Keywords that start the next clause of a query (and so end a list after a trailing comma). */
const CLAUSE_KEYWORDS: ReadonlySet<number> = new Set([
  T.FROM,
  T.WHERE,
  T.PREWHERE,
  T.GROUP,
  T.HAVING,
  T.QUALIFY,
  T.WINDOW,
  T.ORDER,
  T.LIMIT,
  T.OFFSET,
  T.SETTINGS,
  T.UNION,
  T.EXCEPT,
  T.INTERSECT,
  T.ARRAY,
  T.LEFT,
  T.INNER,
  T.SAMPLE,
  T.USING,
  T.WITH,
  T.ROWS,
  T.RANGE,
  T.BY,
]);

/** Tokens that, right after a keyword, make that keyword an operand rather than a clause. */
const CONTINUES_EXPRESSION: ReadonlySet<number> = new Set([
  T.COMMA,
  T.RPAREN,
  T.RBRACKET,
  T.RBRACE,
  T.DOT,
  T.EOF,
  T.SEMICOLON,
  T.EQ_SINGLE,
  T.EQ_DOUBLE,
  T.NOT_EQ,
  T.LT,
  T.LT_EQ,
  T.GT,
  T.GT_EQ,
  T.PLUS,
  T.DASH,
  T.ASTERISK,
  T.SLASH,
  T.PERCENT,
  T.CONCAT,
  T.LBRACKET,
  T.NULL_PROPERTY,
  T.NULLISH,
  T.DOUBLECOLON,
  T.QUERY,
  T.LPAREN,
]);

/** After a comma: does the list end here (a trailing comma) rather than continue? */
export function atListEnd(p: Parser): boolean {
  const t = p.t;
  if (t === T.RPAREN || t === T.RBRACKET || t === T.RBRACE || t === T.EOF || t === T.SEMICOLON) return true;
  return CLAUSE_KEYWORDS.has(t) && !CONTINUES_EXPRESSION.has(p.peek());
}

/** columnExprList inside brackets: expr (, expr)* with an optional trailing comma. */
export function parseExprList(p: Parser): Node[] {
  const out: Node[] = [];
  for (;;) {
    out.push(parseExpr(p));
    if (!p.accept(T.COMMA)) return out;
    const t = p.t;
    if (t === T.RPAREN || t === T.RBRACKET || t === T.RBRACE || t === T.EOF) return out;
    // f(a, b, ORDER BY c): a trailing comma before a call's ORDER BY
    if (t === T.ORDER && p.peek() === T.BY) return out;
  }
}

/** A list in a clause (GROUP BY a, b): a trailing comma may also precede the next clause. */
export function parseClauseList(p: Parser): Node[] {
  const out: Node[] = [];
  for (;;) {
    out.push(parseExpr(p));
    if (!p.accept(T.COMMA) || atListEnd(p)) return out;
  }
}

/** identifier (, identifier)*, as plain names. */
export function parseIdentifierList(p: Parser, trailingComma: boolean): string[] {
  const out: string[] = [p.identifier()];
  while (p.at(T.COMMA)) {
    if (trailingComma && !isIdentifierStart(p.peek())) {
      p.pos++;
      break;
    }
    p.pos++;
    out.push(p.identifier());
  }
  return out;
}

function isIdentifierStart(type: number): boolean {
  return type !== T.RPAREN && type !== T.EOF && type !== T.ARROW && type !== T.COLON;
}
