import { lexDefault } from './lexer-default.js';
import { lexTag, lexTagText, lexTemplate } from './lexer-modes.js';
import type { Source } from './source.js';
import { T } from './tokens.js';

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
export const DEFAULT = 0;
export const TEMPLATE = 1;
export const TAG_OPEN = 2;
export const TAG_CLOSE = 3;
export const TAG_TEXT = 4;

/** Lexer state shared by the mode functions (lexer-default.ts, lexer-modes.ts). */
export class Lexer {
  readonly src: string;
  readonly type: number[] = [];
  readonly start: number[] = [];
  readonly end: number[] = [];
  /** Modes to return to: `{` pushes, `}` pops, as `pushMode`/`popMode` in the grammar. */
  private readonly modes: number[] = [];
  mode = DEFAULT;
  i = 0;

  constructor(readonly source: Source) {
    this.src = source.text;
  }

  push(kind: number, from: number, to: number): void {
    this.type.push(kind);
    this.start.push(from);
    this.end.push(to);
  }

  /** Pushes a `len`-character token of `kind` at the cursor and moves past it. */
  take(len: number, kind: number): void {
    this.push(kind, this.i, this.i + len);
    this.i += len;
  }

  enter(mode: number): void {
    this.modes.push(this.mode);
    this.mode = mode;
  }

  leave(at: number): void {
    const previous = this.modes.pop();
    if (previous === undefined) throw this.source.error("Unmatched '}'", at, at + 1);
    this.mode = previous;
  }
}

/** Splits the query into tokens. Anything the grammar has no token for is a syntax error here. */
export function tokenize(source: Source): Tokens {
  const lx = new Lexer(source);
  const src = lx.src;
  const n = src.length;
  while (lx.i < n) {
    const c = src.charCodeAt(lx.i);
    switch (lx.mode) {
      case DEFAULT:
        lexDefault(lx, c);
        break;
      case TEMPLATE:
        lexTemplate(lx, c);
        break;
      case TAG_TEXT:
        lexTagText(lx, c);
        break;
      default:
        lexTag(lx, c, lx.mode === TAG_OPEN);
    }
  }
  lx.push(T.EOF, n, n);
  return { type: lx.type, start: lx.start, end: lx.end };
}
