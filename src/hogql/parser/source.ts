import { HogQLQueryError, HogQLSyntaxError } from '../errors.js';

/** A point in the query text: 1-based line, 0-based column and offset, both in code points. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/**
 * The query text and the conversions from UTF-16 indices (what JavaScript strings use) to the
 * code-point offsets and line/column pairs the AST carries. Code points rather than UTF-16 units
 * because that is what the reference parser reports (and what Python, which consumes the same
 * offsets in PostHog, indexes strings by).
 */
export class Source {
  /** UTF-16 index of the first character of each line. */
  private lineStarts: number[] | null = null;
  /** Code-point offset of each UTF-16 index; null when the text has no astral characters. */
  private codePoints: Int32Array | null = null;

  constructor(readonly text: string) {
    if (/[\uD800-\uDBFF][\uDC00-\uDFFF]/.test(text)) {
      const map = new Int32Array(text.length + 1);
      let cp = 0;
      for (let i = 0; i < text.length; i++) {
        map[i] = cp;
        const c = text.charCodeAt(i);
        // the low half of a pair shares the code point of its high half
        if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) cp++;
        else {
          const d = text.charCodeAt(i + 1);
          if (d < 0xdc00 || d > 0xdfff) cp++;
        }
      }
      map[text.length] = cp;
      this.codePoints = map;
    }
  }

  offset(index: number): number {
    return this.codePoints === null ? index : (this.codePoints[index] as number);
  }

  position(index: number): Position {
    const starts = this.lines();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= index) lo = mid;
      else hi = mid - 1;
    }
    const offset = this.offset(index);
    return { line: lo + 1, column: offset - this.offset(starts[lo] as number), offset };
  }

  /** A syntax error whose message names the line and column (1-based, as editors show them). */
  error(message: string, start: number, end: number = start): HogQLSyntaxError {
    const at = this.position(start);
    const endOffset = this.offset(Math.min(end, this.text.length));
    return new HogQLSyntaxError(
      `${message} (line ${at.line}, column ${at.column + 1})`,
      at.offset,
      endOffset,
    );
  }

  /**
   * Valid syntax that HogQL does not support (SETTINGS, TOP, DATE '…'): the reference parser
   * reports these as NotImplementedError, which the rest of Burrow treats as a query error.
   */
  unsupported(message: string, start: number, end: number = start): HogQLQueryError {
    const at = this.position(start);
    const endOffset = this.offset(Math.min(end, this.text.length));
    return new HogQLQueryError(`${message} (line ${at.line}, column ${at.column + 1})`, at.offset, endOffset);
  }

  private lines(): number[] {
    if (this.lineStarts !== null) return this.lineStarts;
    const starts = [0];
    const text = this.text;
    // only \n starts a line: a lone \r does not, as in the reference lexer
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.lineStarts = starts;
    return starts;
  }
}
