import { parseJoinConstraint } from './join-constraints.js';
import type { Node, Parser } from './parser.js';
import { parsePivot, parseUnpivot } from './pivot.js';
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
