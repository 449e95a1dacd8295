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
