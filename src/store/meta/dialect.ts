import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Column types of one dialect, used by migrations so that one migration file serves both. */
export interface ColumnTypes {
  uuid: string;
  json: string;
  bool: string;
  timestamp: string;
  serial: string;
  boolLiteral(value: boolean): string;
}

/**
 * Everything the metadata store writes or asks differently on SQLite and PostgreSQL, in one object
 * that store code asks (`dialectOf(db)`) instead of testing which database it is on. Reading rows
 * back is normalised separately, for both at once, in codec.ts.
 */
export interface SqlDialect {
  name: DialectName;
  types: ColumnTypes;
  /** A boolean literal for raw SQL (SQLite stores booleans as 0/1). */
  bool(value: boolean): RawBuilder<unknown>;
  /**
   * Ends a `SELECT … FROM <table> <alias>` that picks a row to update: on PostgreSQL it locks the
   * row and skips rows another node holds (`FOR UPDATE SKIP LOCKED`); SQLite's single writer lock
   * already gives one statement the same exclusivity, so it adds nothing.
   */
  lockSkipLocked(alias: string): RawBuilder<unknown>;
  /** A write refused by a unique index or primary key. */
  isUniqueViolation(error: unknown): boolean;
  /** A transaction that lost a serialization race and may simply be retried. */
  isSerializationFailure(error: unknown): boolean;
  /** Where Kysely's migration ledger lives (`schema`: the PostgreSQL schema Burrow uses, if any). */
  migrationTableSchema(schema: string | undefined): string | undefined;
}

const codeOf = (error: unknown) => {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
};
const messageOf = (error: unknown) => {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' ? message : '';
};

export const SQLITE: SqlDialect = {
  name: 'sqlite',
  types: {
    uuid: 'text',
    json: 'text',
    bool: 'integer',
    timestamp: 'text',
    serial: 'integer',
    boolLiteral: (value) => (value ? '1' : '0'),
  },
  bool: (value) => (value ? sql`1` : sql`0`),
  lockSkipLocked: () => sql``,
  // better-sqlite3's SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY; the message says "UNIQUE constraint failed".
  isUniqueViolation: (error) =>
    codeOf(error) === 'SQLITE_CONSTRAINT_UNIQUE' ||
    codeOf(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint/.test(messageOf(error)),
  // One writer at a time: SQLite transactions never fail this way.
  isSerializationFailure: () => false,
  migrationTableSchema: () => undefined,
};

export const POSTGRES: SqlDialect = {
  name: 'postgres',
  types: {
    uuid: 'uuid',
    json: 'jsonb',
    bool: 'boolean',
    timestamp: 'timestamptz',
    serial: 'serial',
    boolLiteral: (value) => String(value),
  },
  bool: (value) => (value ? sql`true` : sql`false`),
  lockSkipLocked: (alias) => sql`for update of ${sql.id(alias)} skip locked`,
  isUniqueViolation: (error) => codeOf(error) === '23505', // SQLSTATE unique_violation
  isSerializationFailure: (error) => codeOf(error) === '40001', // SQLSTATE serialization_failure
  // Kysely looks for its ledger across every schema, so another Burrow schema in the same
  // database would otherwise look like ours: name it.
  migrationTableSchema: (schema) => schema ?? 'public',
};

export const dialectNamed = (name: DialectName): SqlDialect => (name === 'postgres' ? POSTGRES : SQLITE);

/** The dialect of a metadata database or transaction (Kysely's adapter says which it is). */
export function dialectOf(db: Kysely<unknown> | { getExecutor(): { adapter: unknown } }): SqlDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? POSTGRES : SQLITE;
}
