import { parseExpr } from './expressions.js';
import type { Node, Parser } from './parser.js';
import { T } from './tokens.js';

/** A HogQLX tag: <name attr='x' attr={expr} flag/> or <name …>children</name>. */
export function parseTag(p: Parser): Node {
  p.enter();
  const first = p.expect(T.TAG_OPEN, "'<'");
  const kind = p.text(p.expect(T.IDENT, 'a tag name'));
  const attributes: Node[] = [];
  while (p.at(T.IDENT)) attributes.push(parseAttribute(p));
  if (p.accept(T.SLASH_GT)) {
    p.leave();
    return p.span({ node: 'HogQLXTag', kind, attributes }, first);
  }
  p.expect(T.GT, "'>'");
  const children: Node[] = [];
  for (;;) {
    if (p.at(T.TAG_TEXT)) {
      const at = p.pos++;
      children.push(p.span({ node: 'Constant', value: p.text(at) }, at));
    } else if (p.at(T.TAG_OPEN)) {
      children.push(parseTag(p));
    } else if (p.accept(T.LBRACE)) {
      children.push(parseExpr(p));
      p.expect(T.RBRACE, "'}'");
    } else {
      break;
    }
  }
  p.expect(T.LT_SLASH, "'</'");
  const closing = p.text(p.expect(T.IDENT, 'a tag name'));
  p.expect(T.GT, "'>'");
  if (closing !== kind)
    p.defer(p.error(`Opening and closing HogQLX tags must match. Got ${kind} and ${closing}`, first));
  if (children.length > 0) {
    if (attributes.some((a) => a.name === 'children')) {
      p.defer(p.error("Can't have a HogQLX tag with both children and a 'children' attribute", first));
    }
    attributes.push({ node: 'HogQLXAttribute', name: 'children', value: children });
  }
  p.leave();
  return p.span({ node: 'HogQLXTag', kind, attributes }, first);
}

function parseAttribute(p: Parser): Node {
  const first = p.pos;
  const name = p.text(p.pos++);
  let value: Node;
  if (!p.accept(T.EQ_SINGLE)) {
    value = { node: 'Constant', value: true };
  } else if (p.at(T.STRING)) {
    const at = p.pos++;
    value = p.span({ node: 'Constant', value: p.stringAt(at) }, at);
  } else {
    p.expect(T.LBRACE, "a string or '{'");
    value = parseExpr(p);
    p.expect(T.RBRACE, "'}'");
  }
  return p.span({ node: 'HogQLXAttribute', name, value }, first);
}
