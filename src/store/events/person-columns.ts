import { checkPersonKeys, personColumnName, propertyExpression, sqlString } from './columns.js';
import type { QueryOptions } from './store.js';

/**
 * Person properties with their own column on `events` (`pmat_<key>`, issue 22).
 *
 * Each column is `Nullable(String) MATERIALIZED` the expression HogQL prints for
 * `person.properties.<key>` on events (`person_properties`), so reading the column gives exactly
 * what extracting from the JSON gives, at the cost of reading a short column instead of parsing
 * every row's JSON. The table is shared by every project, so the operator chooses the keys
 * (`MATERIALIZED_PERSON_PROPERTIES`, `burrow materialize person <key>`), never a project.
 *
 * Which columns exist is read from the engine (`system.columns`), not from the configuration: the
 * column's comment names its key (the column name alone does not: `a.b` and `a_b` share one), and
 * a node that did not add a column learns of it at its next refresh. A column added to a table
 * with data is filled for existing parts by a background mutation; until a part is rewritten the
 * engine computes the column from `person_properties` when it is read, so results never depend on
 * how far the mutation got.
 */

/** The key a column holds is recorded in its comment, after this prefix. */
const COMMENT_PREFIX = 'burrow_person_property:';

/** What the HogQL printer needs: the column holding `person_properties.<key>`, if any. */
export interface PersonColumns {
  column(key: string): string | undefined;
  /** Every known key and its column. */
  all(): ReadonlyMap<string, string>;
  /** Reads the set again from the engine. */
  refresh(): Promise<void>;
}

type Query = <T>(sql: string, options?: QueryOptions) => Promise<T[]>;

/** The set of person columns as last read from the engine; empty until the first refresh. */
export function discoveredPersonColumns(query: Query, database: string): PersonColumns {
  let columns = new Map<string, string>();
  return {
    column: (key) => columns.get(key),
    all: () => columns,
    async refresh() {
      columns = await readPersonColumns(query, database);
    },
  };
}

async function readPersonColumns(query: Query, database: string): Promise<Map<string, string>> {
  const rows = await query<{ name: string; comment: string }>(
    `SELECT name, comment FROM system.columns
     WHERE database = {database:String} AND table = 'events' AND startsWith(name, 'pmat_')
       AND default_kind = 'MATERIALIZED'`,
    { params: { database } },
  );
  const out = new Map<string, string>();
  for (const { name, comment } of rows) {
    if (!comment.startsWith(COMMENT_PREFIX)) continue;
    const key = comment.slice(COMMENT_PREFIX.length);
    // A column whose name does not follow from its key was not made here: not trusted.
    if (personColumnName(key) === name) out.set(key, name);
  }
  return out;
}

/** The part of the events store these functions use. */
export interface ColumnsStore {
  database: string;
  table(name: string): string;
  query<T = Record<string, unknown>>(sql: string, options?: QueryOptions): Promise<T[]>;
  command(sql: string, options?: QueryOptions): Promise<void>;
  personColumns: PersonColumns;
}

export interface Materialized {
  key: string;
  column: string;
  /** The column was added now (false: it was there already). */
  added: boolean;
  /** A background mutation is filling the column in existing parts. */
  materializing: boolean;
}

/**
 * Adds the columns for `keys` that are missing (idempotent) and starts filling existing parts in
 * the background (a mutation; it does not hold the caller). Throws, naming the keys, when a key is
 * invalid or its column name is taken by another key. Refreshes `store.personColumns`.
 */
export async function materializePersonProperties(
  store: ColumnsStore,
  keys: readonly string[],
): Promise<Materialized[]> {
  const wanted = checkPersonKeys(keys);
  await store.personColumns.refresh();
  const have = new Map([...store.personColumns.all()].map(([key, column]) => [column, key]));
  for (const key of wanted) {
    const holder = have.get(personColumnName(key));
    if (holder !== undefined && holder !== key)
      throw new Error(
        `person property "${key}" would use the column ${personColumnName(key)}, which already holds "${holder}"`,
      );
  }
  const table = store.table('events');
  const out: Materialized[] = [];
  const added: string[] = [];
  for (const key of wanted) {
    const column = personColumnName(key);
    if (have.has(column)) {
      out.push({ key, column, added: false, materializing: false });
      continue;
    }
    await store.command(
      `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS \`${column}\` Nullable(String) ` +
        `MATERIALIZED ${propertyExpression('person_properties', key)} COMMENT ${sqlString(COMMENT_PREFIX + key)}`,
    );
    added.push(column);
    out.push({ key, column, added: true, materializing: false });
  }
  if (added.length && (await hasParts(store))) {
    // One mutation per column; `mutations_sync = 0`: the statement only queues it.
    for (const column of added) {
      await store.command(`ALTER TABLE ${table} MATERIALIZE COLUMN \`${column}\``, {
        settings: { mutations_sync: 0 },
      });
      const row = out.find((r) => r.column === column);
      if (row) row.materializing = true;
    }
  }
  await store.personColumns.refresh();
  return out;
}

async function hasParts(store: ColumnsStore): Promise<boolean> {
  const [row] = await store.query<{ n: number }>(
    `SELECT count() AS n FROM system.parts WHERE database = {database:String} AND table = 'events' AND active`,
    { params: { database: store.database } },
  );
  return Number(row?.n ?? 0) > 0;
}

/** Columns whose background materialization has not finished, with the parts left to rewrite. */
export async function pendingMaterializations(
  store: Pick<ColumnsStore, 'database' | 'query'>,
): Promise<Array<{ column: string; parts_to_do: number; latest_fail_reason: string }>> {
  const rows = await store.query<{ command: string; parts_to_do: number; latest_fail_reason: string }>(
    `SELECT command, parts_to_do, latest_fail_reason FROM system.mutations
     WHERE database = {database:String} AND table = 'events' AND NOT is_done`,
    { params: { database: store.database } },
  );
  return rows
    .map((r) => ({ ...r, column: /MATERIALIZE COLUMN `?(pmat_[0-9A-Za-z$_]+)/.exec(r.command)?.[1] ?? '' }))
    .filter((r) => r.column !== '')
    .map(({ column, parts_to_do, latest_fail_reason }) => ({
      column,
      parts_to_do: Number(parts_to_do),
      latest_fail_reason,
    }));
}
