import type { PropertyTypeLookup } from '../property-types.js';
import { escapeString } from './escape.js';

export interface PrintOptions {
  teamId: number;
  timezone: string;
  /** 0: weeks start on Sunday; 1: on Monday. */
  weekStartDay: 0 | 1;
  /** Qualified, quoted physical table name. */
  table(name: string): string;
  /** Render strings as escaped literals instead of binding them (see docs/benchmarks-history.md, "HogQL strings"). */
  inlineStrings?: boolean;
  /**
   * Binds a string through the caller's own parameters, for a query printed into a larger
   * statement that has some already; returns the placeholder.
   */
  bind?: (value: string) => string;
  /** Declared property types (property definitions): typed properties print converted. */
  propertyType?: PropertyTypeLookup | undefined;
  /**
   * Person properties that have a column on events (`pmat_<key>`), as the events store found
   * them; `events.person_properties.<key>` prints as that column. None: always the JSON.
   */
  personColumns?: PersonColumnLookup | undefined;
  /**
   * The project's retention cut (`YYYY-MM-DD HH:MM:SS`, UTC): events before it are never read,
   * even while the job that deletes them has not run (domain/data-lifecycle/retention.ts).
   */
  eventsSince?: string | undefined;
}

/** The column on events holding exactly `person_properties.<key>`, if there is one. */
export interface PersonColumnLookup {
  column(key: string): string | undefined;
}

/** State of one print: the bound parameters and where in the query the printer is. */
export class PrintContext {
  readonly params: Record<string, string> = {};
  /** Physical tables the query reads, as `options.table` names them. */
  readonly tables = new Set<string>();
  private count = 0;
  constructor(readonly options: PrintOptions) {}

  /** The SQL for a string value: a typed parameter placeholder (or an escaped literal). */
  bindString(value: string): string {
    if (this.options.inlineStrings) return escapeString(value);
    if (this.options.bind) return this.options.bind(value);
    const name = `hogql_val_${this.count++}`;
    this.params[name] = value;
    return `{${name}:String}`;
  }

  /** Our own fixed strings (timezone names are validated when a project is saved). */
  literal(value: string): string {
    return escapeString(value);
  }
}
