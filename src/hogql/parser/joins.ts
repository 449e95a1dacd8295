import { parseExpr } from './expressions.js';
import { parseExprList } from './lists.js';
import type { Node, Parser } from './parser.js';
import { parsePivot, parseUnpivot } from './pivot.js';
import { attempt } from './special-forms.js';
import { parseTableExpr } from './tables.js';
import { T } from './tokens.js';

/**
 * joinExpr: tables joined left to right. The reference AST is a linked list: the first table's
 * JoinExpr holds the next one in `next_join`, which carries the join type and constraint.
 */
export function parseJoinExpr(p: Parser): Node {
  p.enter();
  const first = p.pos;
  let left = parseJoinOperand(p);
  for (;;) {
    if (p.at(T.COMMA) || (p.at(T.CROSS) && p.peek() === T.JOIN)) {
      p.pos += p.at(T.COMMA) ? 1 : 2;
      const right = parseJoinChain(p);
      right.join_type = 'CROSS JOIN';
      appendJoin(left, right);
      continue;
    }
    if ((p.at(T.PIVOT) && p.peek() === T.LPAREN) || p.at(T.UNPIVOT)) {
      const table = p.at(T.PIVOT) ? parsePivot(p, left, first) : parseUnpivot(p, left, first);
      left = p.span(
        { node: 'JoinExpr', table, alias: null, table_final: null, sample: null, next_join: null },
        first,
      );
      continue;
    }
    if (!parseJoinStep(p, left)) break;
  }
  p.leave();
  return left;
}

/** Operand of a cross join: a table followed by any JOINs, which bind tighter than the comma. */
function parseJoinChain(p: Parser): Node {
  const left = parseJoinOperand(p);
  while (parseJoinStep(p, left)) {
    // each step appends to `left`
  }
  return left;
}

/** [NATURAL] [op] JOIN table [constraint] | POSITIONAL JOIN table [constraint]; false if none. */
function parseJoinStep(p: Parser, left: Node): boolean {
  const start = p.pos;
  let joinType: string | null;
  if (p.at(T.POSITIONAL) && p.peek() === T.JOIN) {
    p.pos += 2;
    joinType = 'POSITIONAL JOIN';
  } else {
    p.accept(T.NATURAL);
    joinType = parseJoinOp(p);
    if (joinType === null || !p.accept(T.JOIN)) {
      p.pos = start;
      return false;
    }
  }
  const right = parseJoinOperand(p);
  right.join_type = joinType;
  right.constraint = parseJoinConstraint(p);
  appendJoin(left, right);
  return true;
}

const STRICTNESS: ReadonlyMap<number, string> = new Map([
  [T.ALL, 'ALL'],
  [T.ANY, 'ANY'],
  [T.ASOF, 'ASOF'],
  [T.SEMI, 'SEMI'],
  [T.ANTI, 'ANTI'],
]);

/** The words before JOIN, normalised as the reference AST spells them ("LEFT OUTER ANY JOIN"). */
function parseJoinOp(p: Parser): string | null {
  let side: string | null = null;
  let outer = false;
  let inner = false;
  const strict: number[] = [];
  for (;;) {
    const t = p.t;
    if (STRICTNESS.has(t)) strict.push(t);
    else if (t === T.LEFT || t === T.RIGHT || t === T.FULL) {
      if (side !== null) return null;
      side = t === T.LEFT ? 'LEFT' : t === T.RIGHT ? 'RIGHT' : 'FULL';
    } else if (t === T.OUTER) outer = true;
    else if (t === T.INNER) inner = true;
    else break;
    p.pos++;
  }
  if (!p.at(T.JOIN)) return null;
  const names = strict.map((t) => STRICTNESS.get(t) as string);
  if (side === null) {
    if (outer) return null;
    if (strict.length === 0) return inner ? 'INNER JOIN' : 'JOIN';
    const kind = names.find((n) => n === 'SEMI' || n === 'ANTI');
    const strictness = names.find((n) => n === 'ALL' || n === 'ANY' || n === 'ASOF');
    if (kind !== undefined) return `${strictness === undefined ? '' : `${strictness} `}${kind} JOIN`;
    return `${strictness} INNER JOIN`;
  }
  if (inner) return null;
  const parts = [side];
  if (outer) parts.push('OUTER');
  const asof = names.includes('ASOF');
  for (const n of names) if (n !== 'ASOF') parts.push(n);
  if (asof) parts.push('ASOF');
  return `${parts.join(' ')} JOIN`;
}

/** ON expr | USING (a, b) | USING a, b; null when there is none. */
function parseJoinConstraint(p: Parser): Node | null {
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

/** A table with FINAL / SAMPLE, or a parenthesised join. */
function parseJoinOperand(p: Parser): Node {
  if (p.at(T.LPAREN) && !startsSubquery(p)) {
    const saved = p.pos;
    p.pos++;
    if (!p.at(T.VALUES)) {
      const inner = parseJoinExpr(p);
      p.expect(T.RPAREN, "')'");
      return inner;
    }
    p.pos = saved;
  }
  return parseTableExpr(p);
}

function startsSubquery(p: Parser): boolean {
  let i = 1;
  while (p.peek(i) === T.LPAREN) i++;
  const t = p.peek(i);
  return t === T.SELECT || t === T.WITH || t === T.LBRACE;
}

/** Appends `right` (and whatever follows it) to the end of `left`'s chain. */
function appendJoin(left: Node, right: Node): void {
  let tail = (tails.get(left) as Node | undefined) ?? left;
  while (tail.next_join !== null && tail.next_join !== undefined) tail = tail.next_join as Node;
  tail.next_join = right;
  let end = right;
  while (end.next_join !== null && end.next_join !== undefined) end = end.next_join as Node;
  tails.set(left, end);
}

/** Last JoinExpr of each chain head, so that a thousand-table FROM is not quadratic. */
const tails = new WeakMap<Node, Node>();
