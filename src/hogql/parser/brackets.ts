import { parseExpr } from './expressions.js';
import { parenLambdaAt, parseArrowLambda } from './lambdas.js';
import { parseExprList } from './lists.js';
import type { Node, Parser } from './parser.js';
import { parseSelectSet } from './select-set.js';
import { attempt } from './special-forms.js';
import { parseColumnsParenthesized } from './star.js';
import { isIdentifierLike, T } from './tokens.js';

/** Does `( select …` follow (the cursor being on the token before the parenthesis)? */
export function atSelectAfterParen(p: Parser): boolean {
  let i = 1;
  while (p.peek(i) === T.LPAREN) i++;
  const t = p.peek(i);
  return t === T.SELECT || t === T.WITH;
}

/** `( … )`: a subquery, a lambda's parameters, a tuple, `(* EXCLUDE …)` or just grouping. */
export function parseParenthesized(p: Parser): Node {
  const first = p.pos;
  const next = p.peek();
  if (next === T.RPAREN && p.peek(2) === T.ARROW) return parseArrowLambda(p, first, true);
  if (isIdentifierLike(next) && parenLambdaAt(p, p.pos)) {
    return parseArrowLambda(p, first, true);
  }
  if (next === T.ASTERISK && (p.peek(2) === T.EXCLUDE || p.peek(2) === T.REPLACE)) {
    return parseColumnsParenthesized(p);
  }
  if (atSelectAfterParen(p)) {
    const saved = p.pos;
    const deferred = p.deferred;
    try {
      p.pos++;
      const query = parseSelectSet(p);
      p.expect(T.RPAREN, "')'");
      return query;
    } catch (err) {
      if (!p.recoverable(err)) throw err;
      p.deferred = deferred;
      // `((select 1) + 1)` groups an expression starting with a subquery, and `(select(1))` calls
      // a function named select: when the query does not parse, the expression may
      p.pos = saved;
      const expr = attempt(p, () => parseParenthesizedExpr(p, first));
      if (expr === null) throw err;
      return expr;
    }
  }
  return parseParenthesizedExpr(p, first);
}

function parseParenthesizedExpr(p: Parser, first: number): Node {
  p.pos++;
  const items = parseExprList(p);
  const trailing = p.type[p.pos - 1] === T.COMMA;
  p.expect(T.RPAREN, "')'");
  if (items.length === 1 && !trailing) return items[0] as Node;
  return p.span({ node: 'Tuple', exprs: items }, first);
}

export function parseArray(p: Parser, first: number): Node {
  p.expect(T.LBRACKET, "'['");
  const exprs = p.at(T.RBRACKET) ? [] : parseExprList(p);
  p.expect(T.RBRACKET, "']'");
  return p.span({ node: 'Array', exprs }, first);
}

/** `{expr}` is a placeholder, `{}` and `{k: v, …}` are dictionaries. */
export function parseBrace(p: Parser): Node {
  const first = p.pos++;
  if (p.accept(T.RBRACE)) return p.span({ node: 'Dict', items: [] }, first);
  const key = parseExpr(p);
  if (p.accept(T.RBRACE)) return p.span({ node: 'Placeholder', expr: key }, first);
  const items: Node[][] = [];
  let k = key;
  for (;;) {
    p.expect(T.COLON, "':'");
    items.push([k, parseExpr(p)]);
    if (!p.accept(T.COMMA) || p.at(T.RBRACE)) break;
    k = parseExpr(p);
  }
  p.expect(T.RBRACE, "'}'");
  return p.span({ node: 'Dict', items }, first);
}
