import { P, parseExpr } from './expressions.js';
import { parseExprList } from './lists.js';
import type { Node, Parser } from './parser.js';
import { T } from './tokens.js';

/** table PIVOT (aggregates FOR column IN (values) [column IN (values)]… [GROUP BY …]) */
export function parsePivot(p: Parser, table: Node, first: number): Node {
  p.pos += 2;
  const aggregates = parseExprList(p);
  p.expect(T.FOR, 'FOR');
  const columns: Node[] = [];
  do {
    const column = parseTupleOrSingle(p);
    const values = parseInList(p);
    columns.push({ node: 'PivotColumn', column, values });
  } while (!p.at(T.RPAREN) && !p.at(T.GROUP));
  const node: Node = { node: 'PivotExpr', table, aggregates, columns };
  if (p.at(T.GROUP)) {
    p.pos++;
    p.expect(T.BY, 'BY');
    node.group_by = parseExprList(p);
  }
  p.expect(T.RPAREN, "')'");
  return p.span(node, first);
}

/** table UNPIVOT [INCLUDE NULLS] (values FOR names IN (columns), …) */
export function parseUnpivot(p: Parser, table: Node, first: number): Node {
  p.pos++;
  let includeNulls = false;
  if (p.at(T.INCLUDE)) {
    p.pos++;
    p.expect(T.NULLS, 'NULLS');
    includeNulls = true;
  }
  p.expect(T.LPAREN, "'('");
  const columns: Node[] = [];
  for (;;) {
    const valueColumns = parseTupleOrSingle(p);
    p.expect(T.FOR, 'FOR');
    const nameColumns = parseTupleOrSingle(p);
    const values = parseInList(p);
    // further `names IN (…)` groups are accepted by the grammar but not kept by the reference AST
    while (!p.at(T.COMMA) && !p.at(T.RPAREN)) {
      parseTupleOrSingle(p);
      parseInList(p);
    }
    columns.push({
      node: 'UnpivotColumn',
      value_columns: valueColumns,
      name_columns: nameColumns,
      unpivot_values: values,
    });
    if (!p.accept(T.COMMA) || p.at(T.RPAREN)) break;
  }
  p.expect(T.RPAREN, "')'");
  return p.span({ node: 'UnpivotExpr', table, columns, include_nulls: includeNulls }, first);
}

/** IN (a, b, …) */
function parseInList(p: Parser): Node[] {
  p.expect(T.IN, 'IN');
  p.expect(T.LPAREN, "'('");
  const values = parseExprList(p);
  p.expect(T.RPAREN, "')'");
  return values;
}

/** (a, b) as a tuple, or one expression that stops before IN / FOR. */
function parseTupleOrSingle(p: Parser): Node {
  if (p.at(T.LPAREN)) {
    const saved = p.pos;
    p.pos++;
    const exprs = parseExprList(p);
    // a parenthesised column list is a Tuple without a span in the reference AST
    if (p.accept(T.RPAREN) && (p.at(T.IN) || p.at(T.FOR))) return { node: 'Tuple', exprs };
    p.pos = saved;
  }
  return parseExpr(p, P.COMPARE + 1);
}
