import {
  exponentEnd,
  isCSpace,
  isDigit,
  isIdentPart,
  isIdentStart,
  isLetter,
  isOpeningTag,
  isTagNamePart,
  isWhitespace,
  MALFORMED_NUMBER,
  scanEnd,
  scanNumber,
  scanQuoted,
  scanTemplateText,
} from './scan.js';
import type { Source } from './source.js';
import { KEYWORDS, T } from './tokens.js';

/**
 * Tokens as parallel arrays (kind, start, end as UTF-16 indices): a 300-character query has about
 * 60 tokens, and arrays of small integers are what V8 handles best.
 */
export interface Tokens {
  readonly type: number[];
  readonly start: number[];
  readonly end: number[];
}

// Lexer modes, as in the grammar: f-strings and HogQLX tags have their own token sets.
const DEFAULT = 0;
const TEMPLATE = 1;
const TAG_OPEN = 2;
const TAG_CLOSE = 3;
const TAG_TEXT = 4;

/** Splits the query into tokens. Anything the grammar has no token for is a syntax error here. */
export function tokenize(source: Source): Tokens {
  const src = source.text;
  const n = src.length;
  const type: number[] = [];
  const start: number[] = [];
  const end: number[] = [];
  const modes: number[] = [];
  let mode = DEFAULT;
  let i = 0;
  const push = (kind: number, from: number, to: number) => {
    type.push(kind);
    start.push(from);
    end.push(to);
  };
  const enter = (next: number) => {
    modes.push(mode);
    mode = next;
  };
  const leave = (at: number) => {
    const prev = modes.pop();
    if (prev === undefined) throw source.error("Unmatched '}'", at, at + 1);
    mode = prev;
  };

  while (i < n) {
    const c = src.charCodeAt(i);
    if (mode === TEMPLATE) {
      if (c === 39) {
        push(T.TEMPLATE_END, i, i + 1);
        leave(i);
        i++;
      } else if (c === 123) {
        push(T.TEMPLATE_EXPR, i, i + 1);
        enter(DEFAULT);
        i++;
      } else {
        const stop = scanTemplateText(src, i);
        if (stop < 0) throw source.error('Invalid escape sequence in template string', i);
        push(T.TEMPLATE_TEXT, i, stop);
        i = stop;
      }
      continue;
    }
    if (mode === TAG_OPEN || mode === TAG_CLOSE) {
      if (c === 32 || c === 9 || c === 13 || c === 10) {
        i++;
      } else if (c === 62) {
        const opening = mode === TAG_OPEN;
        push(T.GT, i, i + 1);
        leave(i);
        if (opening) enter(TAG_TEXT);
        i++;
      } else if (isLetter(c) || c === 95) {
        let j = i + 1;
        while (isTagNamePart(src.charCodeAt(j))) j++;
        push(T.IDENT, i, j);
        i = j;
      } else if (mode === TAG_OPEN && c === 47 && src.charCodeAt(i + 1) === 62) {
        push(T.SLASH_GT, i, i + 2);
        leave(i);
        i += 2;
      } else if (mode === TAG_OPEN && c === 61) {
        push(T.EQ_SINGLE, i, i + 1);
        i++;
      } else if (mode === TAG_OPEN && c === 39) {
        const stop = scanQuoted(src, i, 39);
        if (stop < 0) throw source.error('Unterminated string literal', i);
        push(T.STRING, i, stop);
        i = stop;
      } else if (mode === TAG_OPEN && c === 123) {
        push(T.LBRACE, i, i + 1);
        enter(DEFAULT);
        i++;
      } else {
        throw source.error(`Unexpected character ${describe(src, i)} in a HogQLX tag`, i, i + 1);
      }
      continue;
    }
    if (mode === TAG_TEXT) {
      if (c === 123) {
        push(T.LBRACE, i, i + 1);
        enter(DEFAULT);
        i++;
      } else if (c === 60 && src.charCodeAt(i + 1) === 47) {
        push(T.LT_SLASH, i, i + 2);
        leave(i);
        enter(TAG_CLOSE);
        i += 2;
      } else if (c === 60) {
        push(T.TAG_OPEN, i, i + 1);
        enter(TAG_OPEN);
        i++;
      } else {
        let j = i + 1;
        while (j < n && src.charCodeAt(j) !== 60 && src.charCodeAt(j) !== 123) j++;
        push(T.TAG_TEXT, i, j);
        i = j;
      }
      continue;
    }

    // DEFAULT mode
    if (isWhitespace(c)) {
      i++;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (isIdentPart(src.charCodeAt(j))) j++;
      if (j === i + 1 && src.charCodeAt(j) === 39 && (c === 102 || c === 70)) {
        if (c === 70)
          throw source.error("Unexpected F' (full template strings are not valid here)", i, j + 1);
        push(T.TEMPLATE_START, i, j + 1);
        enter(TEMPLATE);
        i = j + 1;
        continue;
      }
      const kw = j - i <= 12 ? KEYWORDS.get(src.slice(i, j).toLowerCase()) : undefined;
      push(kw ?? T.IDENT, i, j);
      i = j;
      continue;
    }
    if (isDigit(c)) {
      const kind = scanNumber(src, i);
      if (kind === MALFORMED_NUMBER)
        throw source.error(`Malformed number '${src.slice(i, scanEnd)}'`, i, scanEnd);
      push(kind, i, scanEnd);
      i = scanEnd;
      continue;
    }
    const c1 = src.charCodeAt(i + 1);
    switch (c) {
      case 39: // '
      case 96: // `
      case 34: {
        // "
        const stop = scanQuoted(src, i, c);
        if (stop < 0) {
          const what = c === 39 ? 'string literal' : 'quoted identifier';
          throw source.error(`Unterminated ${what} or invalid escape sequence`, i);
        }
        push(c === 39 ? T.STRING : T.QUOTED_IDENT, i, stop);
        i = stop;
        continue;
      }
      case 46: // .
        if (isDigit(c1)) {
          let k = i + 1;
          while (isDigit(src.charCodeAt(k))) k++;
          const exp = exponentEnd(src, k, 101);
          if (exp > 0) {
            push(T.FLOAT, i, exp);
            i = exp;
            continue;
          }
        }
        push(T.DOT, i, i + 1);
        i++;
        continue;
      case 123: // {
        push(T.LBRACE, i, i + 1);
        enter(DEFAULT);
        i++;
        continue;
      case 125: // }
        push(T.RBRACE, i, i + 1);
        leave(i);
        i++;
        continue;
      case 60: // <
        if (c1 === 61) {
          if (src.charCodeAt(i + 2) === 62) push2(3, T.NULLSAFE_EQ);
          else push2(2, T.LT_EQ);
        } else if (c1 === 62) push2(2, T.NOT_EQ);
        else if (c1 === 47) {
          push2(2, T.LT_SLASH);
          enter(TAG_CLOSE);
        } else if (isOpeningTag(src, i)) {
          push2(1, T.TAG_OPEN);
          enter(TAG_OPEN);
        } else push2(1, T.LT);
        continue;
      case 62: // >
        push2(c1 === 61 ? 2 : 1, c1 === 61 ? T.GT_EQ : T.GT);
        continue;
      case 61: // =
        if (c1 === 126)
          push2(
            src.charCodeAt(i + 2) === 42 ? 3 : 2,
            src.charCodeAt(i + 2) === 42 ? T.IREGEX_DOUBLE : T.REGEX_DOUBLE,
          );
        else if (c1 === 61) push2(2, T.EQ_DOUBLE);
        else push2(1, T.EQ_SINGLE);
        continue;
      case 33: // !
        if (c1 === 126)
          push2(
            src.charCodeAt(i + 2) === 42 ? 3 : 2,
            src.charCodeAt(i + 2) === 42 ? T.NOT_IREGEX : T.NOT_REGEX,
          );
        else if (c1 === 61) push2(2, T.NOT_EQ);
        else break;
        continue;
      case 126: // ~
        push2(c1 === 42 ? 2 : 1, c1 === 42 ? T.IREGEX_SINGLE : T.REGEX_SINGLE);
        continue;
      case 63: // ?
        if (c1 === 46) push2(2, T.NULL_PROPERTY);
        else if (c1 === 63) push2(2, T.NULLISH);
        else push2(1, T.QUERY);
        continue;
      case 58: // :
        if (c1 === 58) push2(2, T.DOUBLECOLON);
        else if (c1 === 61) push2(2, T.COLONEQUALS);
        else push2(1, T.COLON);
        continue;
      case 45: // -
        if (c1 === 62) push2(2, T.ARROW);
        else if (c1 === 45) i = lineCommentEnd(src, i);
        else push2(1, T.DASH);
        continue;
      case 47: // /
        if (c1 === 47) i = lineCommentEnd(src, i);
        else if (c1 === 42 && src.indexOf('*/', i + 2) !== -1) i = src.indexOf('*/', i + 2) + 2;
        else if (c1 === 62) push2(2, T.SLASH_GT);
        else push2(1, T.SLASH);
        continue;
      case 124: // |
        if (c1 !== 124) break;
        push2(2, T.CONCAT);
        continue;
      case 42:
        push2(1, T.ASTERISK);
        continue;
      case 44:
        push2(1, T.COMMA);
        continue;
      case 35: // # is a positional reference before a digit and a line comment otherwise
        if (isDigit(c1)) push2(1, T.HASH);
        else i = lineCommentEnd(src, i - 1);
        continue;
      case 91:
        push2(1, T.LBRACKET);
        continue;
      case 93:
        push2(1, T.RBRACKET);
        continue;
      case 40:
        push2(1, T.LPAREN);
        continue;
      case 41:
        push2(1, T.RPAREN);
        continue;
      case 37:
        push2(1, T.PERCENT);
        continue;
      case 43:
        push2(1, T.PLUS);
        continue;
      case 59:
        push2(1, T.SEMICOLON);
        continue;
    }
    throw source.error(`Unexpected character ${describe(src, i)}`, i, i + 1);
  }
  push(T.EOF, n, n);
  return { type, start, end };

  function push2(len: number, kind: number) {
    push(kind, i, i + len);
    i += len;
  }
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

function describe(src: string, i: number): string {
  const cp = src.codePointAt(i) as number;
  const ch = String.fromCodePoint(cp);
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return cp < 0x7f && !isCSpace(cp) ? `'${ch}'` : `U+${hex}`;
}
