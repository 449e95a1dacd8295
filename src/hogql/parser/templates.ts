import { parseExpr } from './expressions.js';
import type { Node, Parser } from './parser.js';
import { unquote } from './text.js';
import { T } from './tokens.js';

/**
 * f'text {expr} text': one part stays itself, several become concat(…); text parts are constants
 * spanning their text, an empty f'' is an empty string spanning the whole literal.
 */
export function parseTemplateString(p: Parser): Node {
  const first = p.expect(T.TEMPLATE_START, "f'");
  const parts: Node[] = [];
  for (;;) {
    if (p.at(T.TEMPLATE_TEXT)) {
      const at = p.pos++;
      parts.push(p.span({ node: 'Constant', value: unquote(`'${p.text(at)}'`, 39) }, at));
    } else if (p.accept(T.TEMPLATE_EXPR)) {
      parts.push(parseExpr(p));
      p.expect(T.RBRACE, "'}'");
    } else {
      break;
    }
  }
  p.expect(T.TEMPLATE_END, 'the end of the template string');
  if (parts.length === 0) return p.span({ node: 'Constant', value: '' }, first);
  if (parts.length === 1) return parts[0] as Node;
  return p.span({ node: 'Call', name: 'concat', args: parts }, first);
}
