import { T } from './tokens.js';

/** For each opening bracket token, the index of its closing one (-1 if none): one pass, a stack. */
export function matchBrackets(type: number[]): Int32Array {
  const out = new Int32Array(type.length).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < type.length; i++) {
    const t = type[i];
    if (t === T.LPAREN || t === T.LBRACKET || t === T.LBRACE || t === T.TEMPLATE_EXPR) stack.push(i);
    else if (t === T.RPAREN || t === T.RBRACKET || t === T.RBRACE) {
      const open = stack.pop();
      if (open !== undefined) out[open] = i;
    }
  }
  return out;
}

/** Removes the quotes of a string or quoted identifier and resolves its escapes. */
export function unquote(raw: string, quote: number): string {
  const body = raw.slice(1, -1);
  if (body.indexOf('\\') === -1 && body.indexOf(String.fromCharCode(quote)) === -1) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c === quote) {
      out += body[i];
      i++; // a doubled quote stands for one
      continue;
    }
    if (c !== 92) {
      out += body[i];
      continue;
    }
    const next = body[i + 1] as string;
    i++;
    switch (next) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'r':
        out += '\r';
        break;
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'a':
        out += '\x07';
        break;
      case 'v':
        out += '\v';
        break;
      case '0':
        break;
      case '\\':
      case "'":
      case '"':
      case '`':
      case '{':
        out += next;
        break;
      default:
        // \x41, \N and the like are kept as written
        out += `\\${next}`;
    }
  }
  return out;
}
