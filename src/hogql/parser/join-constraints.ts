import { parseExpr } from './expressions.js';
import { parseExprList } from './lists.js';
import type { Node, Parser } from './parser.js';
import { attempt } from './special-forms.js';
import { T } from './tokens.js';

/** ON expr | USING (a, b) | USING a, b; null when there is none. */
export function parseJoinConstraint(p: Parser): Node | null {
  const first = p.pos;
  let type: string;
  if (p.accept(T.ON)) type = 'ON';
  else if (p.accept(T.USING)) type = 'USING';
  else return null;
  const parens = type === 'USING' && p.at(T.LPAREN) && parensAroundList(p);
  let exprs: Node[];
  if (parens) {
    p.pos++;
    exprs = parseExprList(p);
    p.expect(T.RPAREN, "')'");
  } else {
    exprs = parseConstraintList(p);
  }
  if (exprs.length > 1 && type === 'ON')
    p.defer(p.unsupported('JOIN … ON takes one condition: combine several with AND', first));
  // several USING columns become a Tuple, which the reference AST leaves without a span
  const expr = exprs.length === 1 ? (exprs[0] as Node) : { node: 'Tuple', exprs };
  return p.span({ node: 'JoinConstraint', expr, constraint_type: type }, first);
}

/** Tokens that may follow a join constraint: another join, the next clause, or the end. */
const AFTER_CONSTRAINT: ReadonlySet<number> = new Set([
  T.COMMA,
  T.JOIN,
  T.INNER,
  T.LEFT,
  T.RIGHT,
  T.FULL,
  T.CROSS,
  T.ALL,
  T.ANY,
  T.ASOF,
  T.SEMI,
  T.ANTI,
  T.NATURAL,
  T.POSITIONAL,
  T.PIVOT,
  T.UNPIVOT,
  T.ARRAY,
  T.PREWHERE,
  T.WHERE,
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
  T.RPAREN,
  T.SEMICOLON,
  T.EOF,
]);

/**
 * `ON a, b` is a list (which the reference AST then rejects), but in `ON a, t2 AS x` the comma is
 * a cross join: after a comma, an item is part of the list only if the list could go on after it.
 */
function parseConstraintList(p: Parser): Node[] {
  const exprs = [parseExpr(p)];
  while (p.at(T.COMMA)) {
    const saved = p.pos++;
    const item = attempt(p, () => parseExpr(p));
    if (item === null || !(AFTER_CONSTRAINT.has(p.t) || querySampleAhead(p))) {
      p.pos = saved;
      break;
    }
    exprs.push(item);
  }
  return exprs;
}

/** Clauses that may follow a query-level SAMPLE (which comes after WHERE). */
const AFTER_QUERY_SAMPLE: ReadonlySet<number> = new Set([
  T.GROUP,
  T.WITH,
  T.HAVING,
  T.QUALIFY,
  T.USING,
  T.WINDOW,
  T.ORDER,
  T.LIMIT,
  T.OFFSET,
  T.SETTINGS,
  T.UNION,
  T.EXCEPT,
  T.INTERSECT,
  T.RPAREN,
  T.SEMICOLON,
  T.EOF,
]);

/**
 * `ON a, t SAMPLE 0.1`: a query-level SAMPLE (refused later, but valid syntax) can follow the
 * list only if what comes after the sample could follow it too; else `t SAMPLE 0.1` is a table.
 */
function querySampleAhead(p: Parser): boolean {
  let i = p.pos;
  if (p.type[i] === T.USING) i++;
  if (p.type[i] !== T.SAMPLE) return false;
  i = skipRatio(p, i + 1);
  if (p.type[i] === T.OFFSET) i = skipRatio(p, i + 1);
  return AFTER_QUERY_SAMPLE.has(p.type[i] as number);
}

/** Index after a sample ratio (n, n/m or {placeholder}) starting at `i`. */
function skipRatio(p: Parser, i: number): number {
  if (p.type[i] === T.LBRACE) return p.closing(i) + 1;
  const number = (j: number) => {
    let k = j;
    if (p.type[k] === T.DASH || p.type[k] === T.PLUS) k++;
    if (p.type[k] === T.DECIMAL && p.type[k + 1] === T.DOT) k += p.type[k + 2] === T.DECIMAL ? 3 : 2;
    else k++;
    return k;
  };
  let k = number(i);
  if (p.type[k] === T.SLASH) k = number(k + 1);
  return k;
}

/** USING (a, b): do the parentheses close right before the next clause, enclosing the list? */
function parensAroundList(p: Parser): boolean {
  let depth = 0;
  for (let i = p.pos; i < p.type.length; i++) {
    const t = p.type[i];
    if (t === T.LPAREN) depth++;
    else if (t === T.RPAREN && --depth === 0) return p.type[i + 1] !== T.DOT && p.type[i + 1] !== T.LBRACKET;
    else if (t === T.EOF) return false;
  }
  return false;
}
