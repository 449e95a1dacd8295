import { DEFAULT, type Lexer, TAG_CLOSE, TAG_OPEN, TAG_TEXT } from './lexer.js';
import { describe } from './lexer-default.js';
import { isLetter, isTagNamePart, scanQuoted, scanTemplateText } from './scan.js';
import { T } from './tokens.js';

/** Inside f'…': text, `{` opening an expression, or the closing quote. */
export function lexTemplate(lx: Lexer, c: number): void {
  const i = lx.i;
  if (c === 39) {
    lx.push(T.TEMPLATE_END, i, i + 1);
    lx.leave(i);
    lx.i++;
  } else if (c === 123) {
    lx.push(T.TEMPLATE_EXPR, i, i + 1);
    lx.enter(DEFAULT);
    lx.i++;
  } else {
    const stop = scanTemplateText(lx.src, i);
    if (stop < 0) throw lx.source.error('Invalid escape sequence in template string', i);
    lx.push(T.TEMPLATE_TEXT, i, stop);
    lx.i = stop;
  }
}

/** Inside `<tag …>` or `</tag>`: names, `=`, strings, `{expr}`, and the closing `>` or `/>`. */
export function lexTag(lx: Lexer, c: number, opening: boolean): void {
  const src = lx.src;
  const i = lx.i;
  if (c === 32 || c === 9 || c === 13 || c === 10) {
    lx.i++;
  } else if (c === 62) {
    lx.push(T.GT, i, i + 1);
    lx.leave(i);
    if (opening) lx.enter(TAG_TEXT);
    lx.i++;
  } else if (isLetter(c) || c === 95) {
    let j = i + 1;
    while (isTagNamePart(src.charCodeAt(j))) j++;
    lx.push(T.IDENT, i, j);
    lx.i = j;
  } else if (opening && c === 47 && src.charCodeAt(i + 1) === 62) {
    lx.push(T.SLASH_GT, i, i + 2);
    lx.leave(i);
    lx.i += 2;
  } else if (opening && c === 61) {
    lx.push(T.EQ_SINGLE, i, i + 1);
    lx.i++;
  } else if (opening && c === 39) {
    const stop = scanQuoted(src, i, 39);
    if (stop < 0) throw lx.source.error('Unterminated string literal', i);
    lx.push(T.STRING, i, stop);
    lx.i = stop;
  } else if (opening && c === 123) {
    lx.push(T.LBRACE, i, i + 1);
    lx.enter(DEFAULT);
    lx.i++;
  } else {
    throw lx.source.error(`Unexpected character ${describe(src, i)} in a HogQLX tag`, i, i + 1);
  }
}

/** Between tags: text, `{expr}`, a nested tag, or the closing tag. */
export function lexTagText(lx: Lexer, c: number): void {
  const src = lx.src;
  const i = lx.i;
  if (c === 123) {
    lx.push(T.LBRACE, i, i + 1);
    lx.enter(DEFAULT);
    lx.i++;
  } else if (c === 60 && src.charCodeAt(i + 1) === 47) {
    lx.push(T.LT_SLASH, i, i + 2);
    lx.leave(i);
    lx.enter(TAG_CLOSE);
    lx.i += 2;
  } else if (c === 60) {
    lx.push(T.TAG_OPEN, i, i + 1);
    lx.enter(TAG_OPEN);
    lx.i++;
  } else {
    let j = i + 1;
    while (j < src.length && src.charCodeAt(j) !== 60 && src.charCodeAt(j) !== 123) j++;
    lx.push(T.TAG_TEXT, i, j);
    lx.i = j;
  }
}
