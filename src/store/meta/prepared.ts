import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/** Stands for the n-th argument of a prepared query while it is being built. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A query whose shape never changes, built and compiled once per database and then run with new
 * arguments. Building and compiling a Kysely query costs more than running a small SQLite query,
 * so the hot lookups (auth, access checks, key lists) go through this. Values still travel as
 * bound parameters; only the builder work is saved.
 */
export function prepared<DB, Args extends unknown[], Row>(
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
) {
  const compiled = new WeakMap<Kysely<DB>, CompiledQuery<Row>>();
  return async (db: Kysely<DB>, ...args: Args): Promise<Row[]> => {
    let query = compiled.get(db);
    if (!query) {
      const slots = Array.from({ length: arity }, (_, i) => new Slot(i)) as unknown as Args;
      query = build(db, ...slots).compile();
      compiled.set(db, query);
    }
    const parameters = query.parameters.map((p) => (p instanceof Slot ? args[p.index] : p));
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}

/**
 * A multi-row insert (or any statement whose shape depends only on how many rows it takes),
 * built and compiled once per row count and dialect instead of per call. Keyed by the executor's
 * adapter, which a transaction shares with its database (`prepared` above is keyed by the
 * database object, a new one per transaction). Building and compiling a 100-row insert of new
 * persons in Kysely cost a fifth of SQLite's run of it (bench/ingest.ts `--persons 100000`).
 * `build` gets each row as `width` slots, in the order `values` lists a row's values; the answer is
 * the statement's rows (a `returning` clause's). Callers bound the row count (the destinations
 * queue inserts at most 64 rows a statement), so few shapes are compiled.
 */
export function preparedRows<DB, Row, Out = unknown>(
  build: (db: Kysely<DB>, rows: unknown[][]) => Compilable<Out>,
  values: (row: Row) => readonly unknown[],
  width: number,
) {
  const compiled = new WeakMap<object, Map<number, CompiledQuery<Out>>>();
  return async (db: Kysely<DB>, rows: readonly Row[]): Promise<Out[]> => {
    if (rows.length === 0) return [];
    const adapter = db.getExecutor().adapter;
    let bySize = compiled.get(adapter);
    if (!bySize) {
      bySize = new Map();
      compiled.set(adapter, bySize);
    }
    let query = bySize.get(rows.length);
    if (!query) {
      const slots = rows.map((_, r) => Array.from({ length: width }, (_, c) => new Slot(r * width + c)));
      query = build(db, slots).compile();
      bySize.set(rows.length, query);
    }
    const flat: unknown[] = [];
    for (const row of rows) for (const v of values(row)) flat.push(v);
    const parameters = query.parameters.map((p) => (p instanceof Slot ? flat[p.index] : p));
    return (await db.executeQuery<Out>({ ...query, parameters })).rows;
  };
}
