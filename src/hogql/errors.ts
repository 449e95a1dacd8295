/**
 * HogQL errors. Exposed ones (syntax and query errors) carry a message fit for the user and the
 * span of the offending input; every other kind is internal and never shown as is.
 */
export class HogQLError extends Error {
  readonly exposed: boolean = false;
  /** The input field at fault, segments joined by `__` (DRF's form), relative to the filter list. */
  attr?: string;
  constructor(
    message: string,
    readonly start?: number,
    readonly end?: number,
  ) {
    super(message);
    this.name = new.target.name;
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
