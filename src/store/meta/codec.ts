/**
 * Rows read back, normalised for both databases at once: SQLite returns booleans as 0/1, JSON as
 * text and timestamps as the ISO text we wrote; PostgreSQL returns real booleans, parsed jsonb and
 * Date objects. Writers always send JSON text and ISO strings. What differs in the SQL itself
 * (column types, locks, literals, error codes) is dialect.ts's.
 */
export type { ColumnTypes } from './dialect.js';

export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value ?? null);
}

const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** SQLite hands back the ISO text we wrote, which is already canonical; only reparse otherwise. */
export function iso(value: Date | string): string {
  if (value instanceof Date) return value.toISOString();
  return CANONICAL_ISO.test(value) ? value : new Date(value).toISOString();
}

export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

export function now(): string {
  return new Date().toISOString();
}
