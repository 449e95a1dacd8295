/**
 * HogQL errors. Exposed ones (syntax and query errors) carry a message fit for the user and the
 * span of the offending input; every other kind is internal and never shown as is.
 */
export class HogQLError extends Error {
  readonly exposed: boolean = false;
  /** The input field at fault, segments joined by `__` (DRF's form), relative to the filter list. */
  attr?: string;
  /** Code point offsets into the query text (PostHog's convention); set late by `locate`. */
  start?: number;
  end?: number;
  constructor(message: string, start?: number, end?: number) {
    super(message);
    this.name = new.target.name;
    if (start !== undefined) this.start = start;
    if (end !== undefined) this.end = end;
  }
}

/** The input is not valid HogQL. */
export class HogQLSyntaxError extends HogQLError {
  override readonly exposed = true;
}

/** Valid syntax that cannot run: unknown table, field or function, bad placeholder, limits. */
export class HogQLQueryError extends HogQLError {
  override readonly exposed = true;
}

export const isExposed = (err: unknown): err is HogQLError => err instanceof HogQLError && err.exposed;

/**
 * Gives an error raised while handling `node` the node's span, when it has none yet. Called on
 * the way out of each recursive step, so the innermost node that came from the text wins (nodes
 * built by Burrow have no positions and leave the error for an enclosing one).
 */
export function locate(
  err: unknown,
  node: { start?: { offset: number }; end?: { offset: number } },
): unknown {
  if (err instanceof HogQLError && err.start === undefined && node.start) {
    err.start = node.start.offset;
    err.end = node.end?.offset ?? node.start.offset;
  }
  return err;
}
