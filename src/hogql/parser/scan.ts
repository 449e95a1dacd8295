import { T } from './tokens.js';

export const isDigit = (c: number) => c >= 48 && c <= 57;
export const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
export const isLetter = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
export const isIdentStart = (c: number) => isLetter(c) || c === 95 || c === 36;
export const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c);
export const isTagNamePart = (c: number) => isLetter(c) || isDigit(c) || c === 95 || c === 45;
// C's isspace() in the "C" locale, which is what the HogQLX tag lookahead uses
export const isCSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** The full Unicode White_Space set plus U+FEFF, as the grammar's WHITESPACE rule. */
export function isWhitespace(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** Length of a valid backslash escape at `i` (pointing at the backslash), or 0. */
export function escapeLength(src: string, i: number, quote: number): number {
  const c = src.charCodeAt(i + 1);
  switch (c | 0x20) {
    case 98: // b
    case 102: // f
    case 114: // r
    case 110: // n
    case 116: // t
    case 97: // a
    case 118: // v
      return 2;
    case 120: // x
      return isHex(src.charCodeAt(i + 2)) && isHex(src.charCodeAt(i + 3)) ? 4 : 0;
  }
  if (c === 48 || c === 92) return 2; // \0 \\
  if (c === quote) return 2;
  // backquoted identifiers also accept \' (the grammar says so, strings do too)
  if (c === 39 && quote === 96) return 2;
  return 0;
}

/** End of a quoted literal starting at `i`, or -1 when it is unterminated or has a bad escape. */
export function scanQuoted(src: string, i: number, quote: number): number {
  const n = src.length;
  let j = i + 1;
  while (j < n) {
    const c = src.charCodeAt(j);
    if (c === quote) {
      if (src.charCodeAt(j + 1) === quote) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    if (c === 92) {
      const len = escapeLength(src, j, quote);
      if (len === 0) return -1;
      j += len;
      continue;
    }
    j++;
  }
  return -1;
}

/** Text of an f-string up to the next `{`, `'` or end; -1 on a bad escape. */
export function scanTemplateText(src: string, i: number): number {
  const n = src.length;
  let j = i;
  while (j < n) {
    const c = src.charCodeAt(j);
    if (c === 123) break;
    if (c === 39) {
      if (src.charCodeAt(j + 1) === 39) {
        j += 2;
        continue;
      }
      break;
    }
    if (c === 92) {
      const next = src.charCodeAt(j + 1);
      const len = next === 123 ? 2 : escapeLength(src, j, 39);
      if (len === 0) return -1;
      j += len;
      continue;
    }
    j++;
  }
  return j;
}

/** The lexer's `isOpeningTag()` lookahead: does the `<` at `i` open a HogQLX tag? */
export function isOpeningTag(src: string, i: number): boolean {
  const first = src.charCodeAt(i + 1);
  if (!isLetter(first) && first !== 95) return false;
  let j = i + 2;
  while (isTagNamePart(src.charCodeAt(j))) j++;
  let c = src.charCodeAt(j);
  if (c === 62 || c === 47) return true;
  if (!isCSpace(c)) return false;
  j++;
  for (;;) {
    c = src.charCodeAt(j);
    if (isCSpace(c)) {
      j++;
      continue;
    }
    if (c === 47 && src.charCodeAt(j + 1) === 47) j += 2;
    else if (c === 45 && src.charCodeAt(j + 1) === 45) j += 2;
    else if (c === 35) j += 1;
    else break;
    while (j < src.length) {
      c = src.charCodeAt(j);
      if (c === 10 || c === 13 || c === 0) break;
      j++;
    }
  }
  return isLetter(c) || isDigit(c) || c === 95 || c === 62 || c === 47;
}

/** Scans a number starting with a digit at `i`; returns the token kind and sets `scanEnd`. */
export function scanNumber(src: string, i: number): number {
  const c0 = src.charCodeAt(i);
  const c1 = src.charCodeAt(i + 1) | 0x20;
  if (c0 === 48 && c1 === 120 && isHex(src.charCodeAt(i + 2))) {
    let j = i + 3;
    while (isHex(src.charCodeAt(j))) j++;
    // hex float: 0x1.8p3, 0x1p-2
    let k = j;
    if (src.charCodeAt(k) === 46) {
      k++;
      while (isHex(src.charCodeAt(k))) k++;
    }
    const exp = exponentEnd(src, k, 112);
    scanEnd = exp > 0 ? exp : j;
    return exp > 0 ? T.FLOAT : T.HEX;
  }
  if (c0 === 48 && c1 === 98 && isDigit(src.charCodeAt(i + 2))) {
    let j = i + 2;
    let binary = true;
    while (isDigit(src.charCodeAt(j))) {
      if (src.charCodeAt(j) > 49) binary = false;
      j++;
    }
    scanEnd = j;
    return binary ? T.BINARY : MALFORMED_NUMBER;
  }
  if (c0 === 48 && c1 === 111 && isDigit(src.charCodeAt(i + 2))) {
    let j = i + 2;
    while (isDigit(src.charCodeAt(j))) j++;
    scanEnd = j;
    return T.OCTAL_PREFIX;
  }
  let j = i;
  while (isDigit(src.charCodeAt(j))) j++;
  // float forms the lexer owns: 1e5, 1.5e3, 1.e5 (a plain 1.5 is joined by the parser)
  let k = j;
  if (src.charCodeAt(k) === 46) {
    k++;
    while (isDigit(src.charCodeAt(k))) k++;
  }
  const exp = exponentEnd(src, k, 101);
  if (exp > 0) {
    scanEnd = exp;
    return T.FLOAT;
  }
  scanEnd = j;
  if (c0 !== 48 || j - i < 2) return T.DECIMAL;
  for (let m = i + 1; m < j; m++) if (src.charCodeAt(m) > 55) return T.DECIMAL;
  return T.OCTAL;
}

/** `scanNumber`'s answer for 0b12 and the like. */
export const MALFORMED_NUMBER = -1;

/** Where the last `scanNumber` stopped (a module variable so that no tuple is allocated). */
export let scanEnd = 0;

/** End of an exponent `e[+-]digits` (or `p…` for hex floats) starting at `k`, or 0. */
export function exponentEnd(src: string, k: number, letter: number): number {
  if ((src.charCodeAt(k) | 0x20) !== letter) return 0;
  let m = k + 1;
  const sign = src.charCodeAt(m);
  if (sign === 43 || sign === 45) m++;
  if (!isDigit(src.charCodeAt(m))) return 0;
  while (isDigit(src.charCodeAt(m))) m++;
  return m;
}
