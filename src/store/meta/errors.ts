import { POSTGRES, SQLITE } from './dialect.js';

/**
 * A write refused by a unique index or primary key, on either database (dialect.ts says how each
 * reports it). The one check of its kind: the domain turns it into its own answer (409, "already
 * exists") without knowing which database refused.
 */
export function isUniqueViolation(error: unknown): boolean {
  return SQLITE.isUniqueViolation(error) || POSTGRES.isUniqueViolation(error);
}

/** A transaction that lost a serialization race (PostgreSQL only) and may simply be retried. */
export function isSerializationFailure(error: unknown): boolean {
  return SQLITE.isSerializationFailure(error) || POSTGRES.isSerializationFailure(error);
}
