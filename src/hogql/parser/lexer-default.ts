import { DEFAULT, type Lexer, TAG_CLOSE, TAG_OPEN, TEMPLATE } from './lexer.js';
import {
  exponentEnd,
  isCSpace,
  isDigit,
  isIdentPart,
  isIdentStart,
  isOpeningTag,
  isWhitespace,
  MALFORMED_NUMBER,
  scanEnd,
  scanNumber,
  scanQuoted,
} from './scan.js';
import { KEYWORDS, T } from './tokens.js';

/** One token (or a skipped space or comment) of the default mode, at `lx.i`. */
export function lexDefault(lx: Lexer, c: number): void {
  const src = lx.src;
  if (isWhitespace(c)) {
    lx.i++;
    return;
  }
  if (isIdentStart(c)) {
    let j = lx.i + 1;
    while (isIdentPart(src.charCodeAt(j))) j++;
    if (j === lx.i + 1 && src.charCodeAt(j) === 39 && (c === 102 || c === 70)) {
      if (c === 70)
        throw lx.source.error("Unexpected F' (full template strings are not valid here)", lx.i, j + 1);
      lx.push(T.TEMPLATE_START, lx.i, j + 1);
      lx.enter(TEMPLATE);
      lx.i = j + 1;
      return;
    }
    const kw = j - lx.i <= 12 ? KEYWORDS.get(src.slice(lx.i, j).toLowerCase()) : undefined;
    lx.push(kw ?? T.IDENT, lx.i, j);
    lx.i = j;
    return;
  }
  if (isDigit(c)) {
    const kind = scanNumber(src, lx.i);
    if (kind === MALFORMED_NUMBER)
      throw lx.source.error(`Malformed number '${src.slice(lx.i, scanEnd)}'`, lx.i, scanEnd);
    lx.push(kind, lx.i, scanEnd);
    lx.i = scanEnd;
    return;
  }
  const c1 = src.charCodeAt(lx.i + 1);
  switch (c) {
    case 39: // '
    case 96: // `
    case 34: {
      // "
      const stop = scanQuoted(src, lx.i, c);
      if (stop < 0) {
        const what = c === 39 ? 'string literal' : 'quoted identifier';
        throw lx.source.error(`Unterminated ${what} or invalid escape sequence`, lx.i);
      }
      lx.push(c === 39 ? T.STRING : T.QUOTED_IDENT, lx.i, stop);
      lx.i = stop;
      return;
    }
    case 46: // .
      if (isDigit(c1)) {
        let k = lx.i + 1;
        while (isDigit(src.charCodeAt(k))) k++;
        const exp = exponentEnd(src, k, 101);
        if (exp > 0) {
          lx.push(T.FLOAT, lx.i, exp);
          lx.i = exp;
          return;
        }
      }
      lx.push(T.DOT, lx.i, lx.i + 1);
      lx.i++;
      return;
    case 123: // {
      lx.push(T.LBRACE, lx.i, lx.i + 1);
      lx.enter(DEFAULT);
      lx.i++;
      return;
    case 125: // }
      lx.push(T.RBRACE, lx.i, lx.i + 1);
      lx.leave(lx.i);
      lx.i++;
      return;
    case 60: // <
      if (c1 === 61) {
        if (src.charCodeAt(lx.i + 2) === 62) lx.take(3, T.NULLSAFE_EQ);
        else lx.take(2, T.LT_EQ);
      } else if (c1 === 62) lx.take(2, T.NOT_EQ);
      else if (c1 === 47) {
        lx.take(2, T.LT_SLASH);
        lx.enter(TAG_CLOSE);
      } else if (isOpeningTag(src, lx.i)) {
        lx.take(1, T.TAG_OPEN);
        lx.enter(TAG_OPEN);
      } else lx.take(1, T.LT);
      return;
    case 62: // >
      lx.take(c1 === 61 ? 2 : 1, c1 === 61 ? T.GT_EQ : T.GT);
      return;
    case 61: // =
      if (c1 === 126)
        lx.take(
          src.charCodeAt(lx.i + 2) === 42 ? 3 : 2,
          src.charCodeAt(lx.i + 2) === 42 ? T.IREGEX_DOUBLE : T.REGEX_DOUBLE,
        );
      else if (c1 === 61) lx.take(2, T.EQ_DOUBLE);
      else lx.take(1, T.EQ_SINGLE);
      return;
    case 33: // !
      if (c1 === 126)
        lx.take(
          src.charCodeAt(lx.i + 2) === 42 ? 3 : 2,
          src.charCodeAt(lx.i + 2) === 42 ? T.NOT_IREGEX : T.NOT_REGEX,
        );
      else if (c1 === 61) lx.take(2, T.NOT_EQ);
      else break;
      return;
    case 126: // ~
      lx.take(c1 === 42 ? 2 : 1, c1 === 42 ? T.IREGEX_SINGLE : T.REGEX_SINGLE);
      return;
    case 63: // ?
      if (c1 === 46) lx.take(2, T.NULL_PROPERTY);
      else if (c1 === 63) lx.take(2, T.NULLISH);
      else lx.take(1, T.QUERY);
      return;
    case 58: // :
      if (c1 === 58) lx.take(2, T.DOUBLECOLON);
      else if (c1 === 61) lx.take(2, T.COLONEQUALS);
      else lx.take(1, T.COLON);
      return;
    case 45: // -
      if (c1 === 62) lx.take(2, T.ARROW);
      else if (c1 === 45) lx.i = lineCommentEnd(src, lx.i);
      else lx.take(1, T.DASH);
      return;
    case 47: // /
      if (c1 === 47) lx.i = lineCommentEnd(src, lx.i);
      else if (c1 === 42 && src.indexOf('*/', lx.i + 2) !== -1) lx.i = src.indexOf('*/', lx.i + 2) + 2;
      else if (c1 === 62) lx.take(2, T.SLASH_GT);
      else lx.take(1, T.SLASH);
      return;
    case 124: // |
      if (c1 !== 124) break;
      lx.take(2, T.CONCAT);
      return;
    case 42:
      lx.take(1, T.ASTERISK);
      return;
    case 44:
      lx.take(1, T.COMMA);
      return;
    case 35: // # is a positional reference before a digit and a line comment otherwise
      if (isDigit(c1)) lx.take(1, T.HASH);
      else lx.i = lineCommentEnd(src, lx.i - 1);
      return;
    case 91:
      lx.take(1, T.LBRACKET);
      return;
    case 93:
      lx.take(1, T.RBRACKET);
      return;
    case 40:
      lx.take(1, T.LPAREN);
      return;
    case 41:
      lx.take(1, T.RPAREN);
      return;
    case 37:
      lx.take(1, T.PERCENT);
      return;
    case 43:
      lx.take(1, T.PLUS);
      return;
    case 59:
      lx.take(1, T.SEMICOLON);
      return;
  }
  throw lx.source.error(`Unexpected character ${describe(src, lx.i)}`, lx.i, lx.i + 1);
}

/** Index after a `--` or `//` comment (the newline itself is whitespace). */
function lineCommentEnd(src: string, i: number): number {
  let j = i + 2;
  while (j < src.length) {
    const c = src.charCodeAt(j);
    if (c === 10 || c === 13) break;
    j++;
  }
  return j;
}

export function describe(src: string, i: number): string {
  const cp = src.codePointAt(i) as number;
  const ch = String.fromCodePoint(cp);
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return cp < 0x7f && !isCSpace(cp) ? `'${ch}'` : `U+${hex}`;
}
