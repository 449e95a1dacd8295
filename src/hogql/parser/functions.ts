import { parseExpr } from './expressions.js';
import { parseExprList } from './lists.js';
import { parseOrderList, parseWindowExpr } from './order.js';
import type { Node, Parser } from './parser.js';
import { atSelect, parseSelectSet } from './select-set.js';
import { T } from './tokens.js';

interface ArgGroup {
  args: Node[];
  distinct: boolean;
  orderBy: Node[] | null;
}

/** `( [DISTINCT] args [ORDER BY …] )`; the cursor is on '('. */
function parseArgGroup(p: Parser): ArgGroup {
  p.pos++;
  // `f(distinct)` is DISTINCT with no arguments, `f(distinct, x)` and `f(distinct.x)` name a column
  const after = p.peek();
  const path = after === T.DOT && p.peek(2) !== T.DECIMAL && p.peek(2) !== T.OCTAL;
  const distinct = p.at(T.DISTINCT) && after !== T.COMMA && !path && p.accept(T.DISTINCT);
  const args = p.at(T.RPAREN) || p.at(T.ORDER) ? [] : parseExprList(p);
  let orderBy: Node[] | null = null;
  if (p.at(T.ORDER) && p.peek() === T.BY) {
    p.pos += 2;
    orderBy = parseOrderList(p);
  }
  p.expect(T.RPAREN, "')'");
  return { args, distinct, orderBy };
}

/**
 * name(args), name(params)(args), with DISTINCT, ORDER BY, FILTER (WHERE …), OVER (…) or OVER w,
 * and WITHIN GROUP (ORDER BY …); the cursor is on the name, which is followed by '('.
 */
export function parseFunctionCall(p: Parser): Node {
  const first = p.pos;
  const name = p.identifier();
  if (atSelectArgument(p)) return parseSelectArgument(p, name, first);
  let one: ArgGroup;
  if (p.peek() === T.LPAREN) {
    // f((select 1)) is a plain call, f((select 1) union all (select 2)) takes a query
    const saved = p.pos;
    const deferred = p.deferred;
    try {
      one = parseArgGroup(p);
    } catch (err) {
      if (!p.recoverable(err)) throw err;
      p.pos = saved;
      p.deferred = deferred;
      if (!atSelectArgument(p, true)) throw err;
      return parseSelectArgument(p, name, first);
    }
  } else {
    one = parseArgGroup(p);
  }
  const plain = !one.distinct && one.orderBy === null;
  if (plain && p.at(T.WITHIN) && p.peek() === T.GROUP) {
    p.pos += 2;
    p.expect(T.LPAREN, "'('");
    p.expect(T.ORDER, 'ORDER BY');
    p.expect(T.BY, 'BY');
    const withinGroup = parseOrderList(p);
    p.expect(T.RPAREN, "')'");
    return p.span(
      { node: 'Call', name, args: [], params: one.args, distinct: false, within_group: withinGroup },
      first,
    );
  }
  let two: ArgGroup | null = null;
  if (plain && p.at(T.LPAREN) && !atSelectArgument(p)) two = parseArgGroup(p);
  const last = two ?? one;
  let filter: Node | null = null;
  if (p.at(T.FILTER) && p.peek() === T.LPAREN && p.peek(2) === T.WHERE) {
    p.pos += 3;
    filter = parseExpr(p);
    p.expect(T.RPAREN, "')'");
  }
  if (plain && (two === null || two.orderBy === null) && p.at(T.OVER)) {
    p.pos++;
    const node: Node = { node: 'WindowFunction', name, exprs: one.args, args: two === null ? [] : two.args };
    if (p.at(T.LPAREN)) {
      p.pos++;
      node.over_expr = parseWindowExpr(p);
      p.expect(T.RPAREN, "')'");
    } else {
      node.over_identifier = p.identifier();
    }
    return p.span(node, first);
  }
  return p.span(
    {
      node: 'Call',
      name,
      args: last.args,
      params: two === null ? null : one.args,
      distinct: last.distinct,
      order_by: last.orderBy,
      filter_expr: filter,
    },
    first,
  );
}

function parseSelectArgument(p: Parser, name: string, first: number): Node {
  p.pos++;
  const query = parseSelectSet(p);
  p.expect(T.RPAREN, "')'");
  return p.span({ node: 'Call', name, args: [query] }, first);
}

/** Is the cursor on '(' followed by SELECT or WITH (or, if `nested`, by more '(' and then those)? */
function atSelectArgument(p: Parser, nested = false): boolean {
  if (!p.at(T.LPAREN)) return false;
  const saved = p.pos;
  p.pos++;
  if (nested) while (p.at(T.LPAREN)) p.pos++;
  const yes = atSelect(p);
  p.pos = saved;
  return yes;
}
