import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** better-sqlite3 refuses to bind booleans and Dates; turn them into what SQLite stores. */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value;
  });
}

function wrap(statement: Statement): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters) => statement.all(...bindable(parameters)),
    run: (parameters) => statement.run(...bindable(parameters)),
    iterate: (parameters) => statement.iterate(...bindable(parameters)),
  };
}

/**
 * What Kysely's SQLite dialect sees of better-sqlite3. Kysely prepares every query afresh, and
 * preparing costs more than running a small query, so the same SQL text gets the same statement
 * back (bounded, oldest dropped). Parameters are converted here rather than by rewriting each
 * query's syntax tree, which cost more than the query itself.
 */
export function sqliteForKysely(database: Database, max = 500): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = wrap(database.prepare(sql));
        if (cache.size >= max) cache.delete(cache.keys().next().value as string);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
