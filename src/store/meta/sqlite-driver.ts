import type { Database, Statement } from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
} from 'kysely';

/** better-sqlite3 refuses to bind booleans and Dates; turn them into what SQLite stores. */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value;
  });
}

/** Hands the one connection to waiters in arrival order, waking exactly one per release. */
class FifoLock {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  async acquire(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

class Connection implements DatabaseConnection {
  readonly #statements = new Map<string, Statement>();

  constructor(
    private readonly database: Database,
    private readonly maxStatements: number,
  ) {}

  /** Kysely prepares every query afresh; preparing costs more than running a small query. */
  #prepare(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.database.prepare(sql);
      if (this.#statements.size >= this.maxStatements) {
        this.#statements.delete(this.#statements.keys().next().value as string);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.#prepare(query.sql);
    const parameters = bindable(query.parameters);
    if (statement.reader) return { rows: statement.all(...parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams only SELECT queries');
    for (const row of this.#prepare(query.sql).iterate(...bindable(query.parameters)))
      yield { rows: [row as R] };
  }
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Kysely's own SQLite driver wakes every waiting query whenever the single connection is released,
 * which made 64 concurrent requests cost far more than 64 sequential ones. This driver queues
 * them instead, caches prepared statements and converts parameters SQLite cannot bind.
 */
class SqliteDriver implements Driver {
  readonly #lock = new FifoLock();
  readonly #connection: Connection;

  constructor(private readonly database: Database) {
    this.#connection = new Connection(database, 500);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#lock.acquire();
    return this.#connection;
  }

  async releaseConnection(): Promise<void> {
    this.#lock.release();
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quote(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quote(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quote(name)}`));
  }

  async destroy(): Promise<void> {
    this.database.close();
  }
}

/** Kysely's SQLite dialect (compiler, adapter, introspection) over the driver above. */
export class BurrowSqliteDialect extends SqliteDialect {
  constructor(private readonly database: Database) {
    super({ database: database as never });
  }

  override createDriver(): Driver {
    return new SqliteDriver(this.database);
  }
}
