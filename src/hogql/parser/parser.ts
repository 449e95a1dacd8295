import { type HogQLError, type HogQLQueryError, HogQLSyntaxError } from '../errors.js';
import { type Tokens, tokenize } from './lexer.js';
import { Source } from './source.js';
import { matchBrackets, unquote } from './text.js';
import { isIdentifierLike, T } from './tokens.js';

/** An AST node as the reference parser emits it: `node` names the kind, fields are snake_case. */
export type Node = { node: string; [field: string]: unknown };

/**
 * How deep expressions and queries may nest (a subquery counts as two levels). Each level costs a
 * few JavaScript frames, about 1.2 kB of stack for the hungriest construct (nested CAST), which
 * overflows Node's default stack near 790 levels: 200 leaves a fourfold margin for callers' frames
 * while allowing any query a person writes.
 */
export const MAX_DEPTH = 200;

/** How deep the AST may get through chains of operators, which the parser reads in a loop. */
export const MAX_AST_DEPTH = 2000;

/** Cursor over the token stream, plus the helpers every grammar module needs. */
export class Parser {
  readonly source: Source;
  readonly type: number[];
  readonly start: number[];
  readonly end: number[];
  /** Index of the current token. */
  pos = 0;
  depth = 0;
  /** How many INTERVAL expressions enclose the cursor (see intervals.ts). */
  intervals = 0;
  /** Where the last failed lambda lookahead started and stopped (see lambdas.ts). */
  noLambdaFrom = -1;
  noLambdaBefore = -1;
  /** Set while parsing ORDER BY items, where `5. desc` is the number 5. (see literals.ts). */
  orderItems = 0;
  /** Set while retrying an INTERVAL whose nested INTERVALs are plain names or calls. */
  plainIntervals = 0;
  /** Set while retrying an INTERVAL whose nested INTERVAL 'x' are interval strings. */
  stringIntervals = 0;
  /** Set while parsing a BETWEEN's lower bound, where a lambda body stops before AND. */
  betweenLow = 0;

  constructor(text: string) {
    this.source = new Source(text);
    const tokens: Tokens = tokenize(this.source);
    this.type = tokens.type;
    this.start = tokens.start;
    this.end = tokens.end;
  }

  get t(): number {
    return this.type[this.pos] as number;
  }

  peek(ahead = 1): number {
    return this.type[Math.min(this.pos + ahead, this.type.length - 1)] as number;
  }

  at(type: number): boolean {
    return this.type[this.pos] === type;
  }

  accept(type: number): boolean {
    if (this.type[this.pos] !== type) return false;
    this.pos++;
    return true;
  }

  expect(type: number, what: string): number {
    if (this.type[this.pos] !== type) throw this.unexpected(what);
    return this.pos++;
  }

  atIdentifier(): boolean {
    return isIdentifierLike(this.type[this.pos] as number);
  }

  /** Consumes an identifier (or a keyword used as one) and returns its name. */
  identifier(): string {
    if (!isIdentifierLike(this.t)) throw this.unexpected('an identifier');
    return this.identifierAt(this.pos++);
  }

  identifierAt(index: number): string {
    const text = this.text(index);
    if (this.type[index] !== T.QUOTED_IDENT) return text;
    return unquote(text, text.charCodeAt(0));
  }

  text(index: number): string {
    return this.source.text.slice(this.start[index], this.end[index]);
  }

  /** Decoded value of the string literal token at `index`. */
  stringAt(index: number): string {
    return unquote(this.text(index), 39);
  }

  /** Sets `start`/`end` from the first token of the node and the last token consumed. */
  span<N extends Node>(node: N, first: number, last: number = this.pos - 1): N {
    const target: Node = node;
    target.start = this.source.position(this.start[first] as number);
    target.end = this.source.position(this.end[last] as number);
    return node;
  }

  /**
   * Runs `parse` as if the input ended at token `stop`, and checks that it read up to there. Used
   * where the grammar needs lookahead a recursive descent parser lacks: in CAST(x AS type) the
   * expression must end at the last AS, whatever it contains.
   */
  bounded<R>(stop: number, parse: () => R): R {
    const saved = this.type[stop] as number;
    this.type[stop] = T.EOF;
    try {
      const result = parse();
      if (this.pos !== stop) throw this.unexpected();
      return result;
    } finally {
      this.type[stop] = saved;
    }
  }

  /** Index of the token closing the bracket at `open` (the EOF token when unbalanced). */
  closing(open: number): number {
    this.matching ??= matchBrackets(this.type);
    const close = this.matching[open] as number;
    return close === -1 ? this.type.length - 1 : close;
  }

  private matching: Int32Array | null = null;

  /**
   * Set once the nesting limit is hit: that error must end the parse, not send speculative
   * branches (see `attempt`) down their alternatives, which would take exponential time.
   */
  aborted = false;

  enter(): void {
    if (++this.depth > MAX_DEPTH) {
      this.aborted = true;
      throw this.source.error(
        `Query is nested too deeply (more than ${MAX_DEPTH} levels)`,
        this.start[this.pos] as number,
      );
    }
  }

  /**
   * The first error that the reference parser raises only after parsing (its AST builder rejects
   * a construct the grammar accepts: SETTINGS, DATE '…', a reserved alias…). Such errors are kept
   * rather than thrown so that they cannot change how the text is parsed, and thrown once the
   * whole text has parsed; speculative parses that fail drop what they recorded.
   */
  deferred: HogQLError | null = null;

  defer(error: HogQLError): void {
    this.deferred ??= error;
  }

  /** Throws the deferred error, if any: called at the end of a successful parse. */
  finish(): void {
    if (this.deferred !== null) throw this.deferred;
  }

  /** May a failed speculative parse be retried another way? Not after a fatal error. */
  recoverable(err: unknown): boolean {
    return err instanceof HogQLSyntaxError && !this.aborted;
  }

  leave(): void {
    this.depth--;
  }

  error(message: string, index: number = this.pos): HogQLSyntaxError {
    return this.source.error(message, this.start[index] as number, this.end[index] as number);
  }

  unsupported(message: string, index: number = this.pos): HogQLQueryError {
    return this.source.unsupported(message, this.start[index] as number, this.end[index] as number);
  }

  /** Aliases that would shadow constants or the team filter are refused, as by the reference. */
  checkAlias(name: string, index: number): void {
    if (this.type[index] === T.QUOTED_IDENT) return;
    const lower = name.toLowerCase();
    if (lower === 'true' || lower === 'false' || lower === 'team_id') {
      this.defer(this.error(`"${name}" cannot be an alias or identifier, as it's a reserved keyword`, index));
    }
  }

  unexpected(expected?: string): HogQLSyntaxError {
    const found = this.t === T.EOF ? 'end of input' : `'${this.text(this.pos)}'`;
    return this.error(expected ? `Unexpected ${found}, expected ${expected}` : `Unexpected ${found}`);
  }
}
