import { parseExpr } from './expressions.js';
import { parseClauseList } from './lists.js';
import { isFloatConstant } from './literals.js';
import type { Node, Parser } from './parser.js';
import { T } from './tokens.js';

/** orderExpr: expr [ASC|DESC] [NULLS FIRST|LAST] [COLLATE 'x'] [WITH FILL …]. */
export function parseOrderExpr(p: Parser): Node {
  const first = p.pos;
  p.orderItems++;
  let expr: Node;
  try {
    expr = parseExpr(p);
  } finally {
    p.orderItems--;
  }
  let order = 'ASC';
  if (p.at(T.DESC) || p.at(T.DESCENDING)) {
    order = 'DESC';
    p.pos++;
  } else {
    p.accept(T.ASCENDING);
  }
  // NULLS FIRST/LAST and COLLATE are accepted but not represented in the AST
  if (p.accept(T.NULLS)) {
    if (!p.at(T.FIRST) && !p.at(T.LAST)) throw p.unexpected('FIRST or LAST');
    p.pos++;
  }
  if (p.at(T.COLLATE)) {
    p.pos++;
    p.expect(T.STRING, 'a collation string');
  }
  const node: Node = { node: 'OrderExpr', expr, order };
  if (p.at(T.WITH) && p.peek() === T.FILL) node.with_fill = parseWithFill(p);
  return p.span(node, first);
}

function parseWithFill(p: Parser): Node {
  const first = p.pos;
  p.pos += 2;
  const node: Node = { node: 'WithFillExpr' };
  if (p.accept(T.FROM)) node.from_value = parseExpr(p);
  if (p.accept(T.TO)) node.to_value = parseExpr(p);
  if (p.accept(T.STEP)) node.step_value = parseExpr(p);
  return p.span(node, first);
}

export function parseOrderList(p: Parser): Node[] {
  const out = [parseOrderExpr(p)];
  while (p.accept(T.COMMA)) out.push(parseOrderExpr(p));
  return out;
}

/** The inside of OVER (…) or WINDOW w AS (…): PARTITION BY, ORDER BY and a ROWS/RANGE frame. */
export function parseWindowExpr(p: Parser): Node {
  const first = p.pos;
  let partitionBy: Node[] | null = null;
  let orderBy: Node[] | null = null;
  if (p.at(T.PARTITION) && p.peek() === T.BY) {
    p.pos += 2;
    partitionBy = parseClauseList(p);
  }
  if (p.at(T.ORDER) && p.peek() === T.BY) {
    p.pos += 2;
    orderBy = parseOrderList(p);
  }
  const node: Node = {
    node: 'WindowExpr',
    partition_by: partitionBy,
    order_by: orderBy,
    frame_start: null,
    frame_end: null,
  };
  if (p.at(T.ROWS) || p.at(T.RANGE)) {
    node.frame_method = p.at(T.ROWS) ? 'ROWS' : 'RANGE';
    p.pos++;
    if (p.accept(T.BETWEEN)) {
      node.frame_start = parseFrameBound(p);
      p.expect(T.AND, 'AND');
      node.frame_end = parseFrameBound(p);
    } else {
      node.frame_start = parseFrameBound(p);
    }
  }
  // an empty OVER () spans from its ')' back to its '(', as the reference parser reports it
  return p.span(node, first);
}

function parseFrameBound(p: Parser): Node {
  const first = p.pos;
  if (p.at(T.CURRENT) && p.peek() === T.ROW) {
    p.pos += 2;
    return p.span({ node: 'WindowFrameExpr', frame_type: 'CURRENT ROW' }, first);
  }
  let value: unknown = null;
  if (p.at(T.UNBOUNDED) && (p.peek() === T.PRECEDING || p.peek() === T.FOLLOWING)) {
    p.pos++;
  } else {
    const expr = parseExpr(p);
    // an integer constant is stored as a bare number, anything else as the expression
    const integer = expr.node === 'Constant' && typeof expr.value === 'number' && !isFloatConstant(expr);
    value = integer ? expr.value : expr;
  }
  let frameType: string;
  if (p.accept(T.PRECEDING)) frameType = 'PRECEDING';
  else if (p.accept(T.FOLLOWING)) frameType = 'FOLLOWING';
  else throw p.unexpected('PRECEDING or FOLLOWING');
  return p.span({ node: 'WindowFrameExpr', frame_type: frameType, frame_value: value }, first);
}
