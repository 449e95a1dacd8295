import { P, parseExpr } from './expressions.js';
import type { Node, Parser } from './parser.js';
import { attempt } from './special-forms.js';
import { isIdentifierLike, T } from './tokens.js';

/**
 * Is `ident (, ident)* ,? ->` ahead, starting at token `from`? A failed scan is remembered: any
 * start between it and where it stopped lies in the same run of names (`select a, b, c, …`),
 * which would otherwise be rescanned from each name.
 */
export function lambdaAhead(p: Parser, from: number): boolean {
  if (from >= p.noLambdaFrom && from < p.noLambdaBefore) return false;
  let i = from;
  for (;;) {
    if (!isIdentifierLike(p.type[i] as number)) break;
    i++;
    if (p.type[i] === T.ARROW) return true;
    if (p.type[i] !== T.COMMA) break;
    i++;
    if (p.type[i] === T.ARROW) return true;
  }
  p.noLambdaFrom = from;
  p.noLambdaBefore = i;
  return false;
}

/** `x -> body`, `x, y -> body` and `(x, y) -> body`; the body is a full expression. */
export function parseArrowLambda(p: Parser, first: number, parenthesized: boolean): Node {
  const args: string[] = [];
  if (parenthesized) p.pos++;
  while (!p.at(T.ARROW) && !p.at(T.RPAREN)) {
    args.push(p.identifier());
    if (!p.accept(T.COMMA)) break;
  }
  if (parenthesized) p.expect(T.RPAREN, "')'");
  p.expect(T.ARROW, "'->'");
  const body = p.pos;
  // in `a between x -> b and c` the body must leave the AND to the BETWEEN
  const minPrec = p.betweenLow > 0 ? P.AND + 1 : 0;
  const expr = p.at(T.LBRACE) ? attempt(p, () => parseExpr(p, minPrec)) : parseExpr(p, minPrec);
  // `x -> { return x }` has a Hog block as its body, which only the Hog program parser knows
  if (expr === null) throw p.error('Lambdas with a block body (Hog code) are not supported in HogQL', body);
  return p.span({ node: 'Lambda', args, expr }, first);
}

/** `(a, b) -> …` at token `open`: identifiers only, then ')' and '->'. */
export function parenLambdaAt(p: Parser, open: number): boolean {
  if (p.type[open + 1] === T.RPAREN) return p.type[open + 2] === T.ARROW;
  let i = open + 1;
  for (;;) {
    if (!isIdentifierLike(p.type[i] as number)) return false;
    i++;
    if (p.type[i] === T.COMMA) {
      i++;
      if (p.type[i] === T.RPAREN) return p.type[i + 1] === T.ARROW;
      continue;
    }
    return p.type[i] === T.RPAREN && p.type[i + 1] === T.ARROW;
  }
}
