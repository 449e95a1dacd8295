import { parseExpr } from './expressions.js';
import { parseExprList } from './lists.js';
import type { Node, Parser } from './parser.js';
import { atSelect, parseSelectSet } from './select-set.js';
import { isIdentifierLike, T } from './tokens.js';
import { parseCastTypeName } from './types.js';

/** Member access, slices, `::` casts and calls applied to the expression `left`; null if none. */
export function parsePostfix(p: Parser, left: Node, first: number): Node | null {
  switch (p.t) {
    case T.LBRACKET:
      return parseIndex(p, left, first, false);
    case T.DOT: {
      const after = p.peek();
      if (after === T.DECIMAL) {
        p.pos += 2;
        return p.span({ node: 'TupleAccess', tuple: left, index: Number(p.text(p.pos - 1)) }, first);
      }
      if (!isIdentifierLike(after)) return null;
      p.pos++;
      const name = p.identifier();
      return p.span({ node: 'ArrayAccess', array: left, property: { node: 'Constant', value: name } }, first);
    }
    case T.NULL_PROPERTY: {
      const after = p.peek();
      if (after === T.LBRACKET) {
        p.pos++;
        return parseIndex(p, left, first, true);
      }
      if (after === T.DECIMAL) {
        p.pos += 2;
        const index = Number(p.text(p.pos - 1));
        return p.span({ node: 'TupleAccess', tuple: left, index, nullish: true }, first);
      }
      p.pos++;
      const name = p.identifier();
      const property = { node: 'Constant', value: name };
      return p.span({ node: 'ArrayAccess', array: left, property, nullish: true }, first);
    }
    case T.DOUBLECOLON: {
      p.pos++;
      const typeName = parseCastTypeName(p);
      return p.span({ node: 'TypeCast', expr: left, type_name: typeName }, first);
    }
    case T.LPAREN: {
      p.pos++;
      if (atSelect(p)) {
        const query = parseSelectSet(p);
        p.expect(T.RPAREN, "')'");
        const chain = left.node === 'Field' ? (left.chain as unknown[]) : null;
        if (chain !== null && chain.length === 1) {
          return p.span({ node: 'Call', name: chain[0], args: [query] }, first);
        }
        return p.span({ node: 'ExprCall', expr: left, args: [query] }, first);
      }
      const args = p.at(T.RPAREN) ? [] : parseExprList(p);
      p.expect(T.RPAREN, "')'");
      return p.span({ node: 'ExprCall', expr: left, args }, first);
    }
  }
  return null;
}

/** `[i]`, `[a:b]` and their `?.[…]` forms; the cursor is on '['. */
function parseIndex(p: Parser, array: Node, first: number, nullish: boolean): Node {
  p.pos++;
  let start: Node | null = null;
  // `?.[…]` takes an index, never a slice
  if (nullish && p.at(T.COLON)) throw p.unexpected('an expression');
  if (!p.at(T.COLON)) {
    start = parseExpr(p);
    if (!p.at(T.COLON) || nullish) {
      p.expect(T.RBRACKET, "']'");
      const node: Node = { node: 'ArrayAccess', array, property: start };
      if (nullish) node.nullish = true;
      return p.span(node, first);
    }
  }
  p.pos++; // ':'
  const end = p.at(T.RBRACKET) ? null : parseExpr(p);
  p.expect(T.RBRACKET, "']'");
  const node: Node = { node: 'ArraySlice', array };
  if (start !== null) node.start_expr = start;
  if (end !== null) node.end_expr = end;
  return p.span(node, first);
}
