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
 * A multi-row statement (an insert of `rows.length` rows of `columns`) compiled once per row
 * count and then run with new values, as `prepared` does for one row: building and compiling a
 * Kysely insert of a hundred rows cost more than SQLite's insert of them. Callers pass rows of at
 * most `maxRows` (a few dozen), so few shapes are ever compiled.
 */
export function preparedRows<DB, Row>(
  build: (db: Kysely<DB>, rows: Array<Record<string, unknown>>) => Compilable<Row>,
  columns: readonly string[],
  maxRows: number,
) {
  const compiled = new WeakMap<Kysely<DB>, Map<number, CompiledQuery<Row>>>();
  const width = columns.length;
  return async (db: Kysely<DB>, rows: ReadonlyArray<readonly unknown[]>): Promise<Row[]> => {
    if (rows.length === 0) return [];
    if (rows.length > maxRows) throw new Error(`preparedRows: ${rows.length} rows, at most ${maxRows}`);
    let byCount = compiled.get(db);
    if (!byCount) {
      byCount = new Map();
      compiled.set(db, byCount);
    }
    let query = byCount.get(rows.length);
    if (!query) {
      const slotted = rows.map((_, r) =>
        Object.fromEntries(columns.map((c, k) => [c, new Slot(r * width + k)])),
      );
      query = build(db, slotted).compile();
      byCount.set(rows.length, query);
    }
    const parameters = query.parameters.map((p) =>
      p instanceof Slot ? (rows[Math.floor(p.index / width)] as readonly unknown[])[p.index % width] : p,
    );
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
