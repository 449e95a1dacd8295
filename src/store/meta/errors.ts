/**
 * A write refused by a unique index or primary key, in either dialect: PostgreSQL's SQLSTATE 23505,
 * better-sqlite3's SQLITE_CONSTRAINT_UNIQUE / SQLITE_CONSTRAINT_PRIMARYKEY (whose message says
 * "UNIQUE constraint failed"). The domain turns it into its own answer (409, "already exists").
 */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null | undefined;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || /UNIQUE constraint/.test(message);
}

/** PostgreSQL's serialization failure (SQLSTATE 40001): the transaction may simply be retried. */
export function isSerializationFailure(error: unknown): boolean {
  return (error as { code?: unknown } | null | undefined)?.code === '40001';
}
