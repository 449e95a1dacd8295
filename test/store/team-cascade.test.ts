import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openMetaStore } from '../../src/store/meta/db.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';

/**
 * Deleting a project deletes its metadata by the database's own cascade: every table with a
 * `team_id` column must reference `teams` with ON DELETE CASCADE (a new table that forgets would
 * keep a deleted project's rows for ever). Read from the schema, so it covers tables added later.
 */
describe(`every metadata table of a project cascades from teams (${backend})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-cascade-'));
  let schema: string | undefined;
  afterAll(async () => {
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has ON DELETE CASCADE to teams on each team_id', async () => {
    schema = await freshSchema();
    const store = await openMetaStore({
      dataDir,
      databaseUrl: process.env.DATABASE_URL,
      databaseSchema: schema,
    });
    try {
      // Per table with team_id: whether it cascades from teams directly, and the tables it cascades from.
      const teamTables = new Set<string>();
      const direct = new Set<string>();
      const parents = new Map<string, Set<string>>();
      const edge = (child: string, parent: string) => {
        if (!parents.has(child)) parents.set(child, new Set());
        parents.get(child)?.add(parent);
      };
      if (store.dialect.name === 'sqlite') {
        const tables = await sql<{
          name: string;
        }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(store.db);
        for (const { name } of tables.rows) {
          const columns = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(
            store.db,
          );
          if (columns.rows.some((c) => c.name === 'team_id')) teamTables.add(name);
          const fks = await sql<{
            table: string;
            from: string;
            on_delete: string;
          }>`SELECT "table", "from", on_delete FROM pragma_foreign_key_list(${name})`.execute(store.db);
          for (const f of fks.rows) {
            if (f.on_delete !== 'CASCADE') continue;
            if (f.table === 'teams' && f.from === 'team_id') direct.add(name);
            edge(name, f.table);
          }
        }
      } else {
        const own = schema ?? 'public';
        const columns = await sql<{ table_name: string }>`
          SELECT table_name FROM information_schema.columns
          WHERE table_schema = ${own} AND column_name = 'team_id'`.execute(store.db);
        for (const c of columns.rows) teamTables.add(c.table_name);
        const cascades = await sql<{ child: string; column_name: string; parent: string }>`
          SELECT kcu.table_name AS child, kcu.column_name, ccu.table_name AS parent
          FROM information_schema.referential_constraints rc
          JOIN information_schema.key_column_usage kcu
            ON kcu.constraint_name = rc.constraint_name AND kcu.constraint_schema = rc.constraint_schema
          JOIN information_schema.constraint_column_usage ccu
            ON ccu.constraint_name = rc.constraint_name AND ccu.constraint_schema = rc.constraint_schema
          WHERE rc.constraint_schema = ${own} AND rc.delete_rule = 'CASCADE'`.execute(store.db);
        for (const r of cascades.rows) {
          if (r.parent === 'teams' && r.column_name === 'team_id') direct.add(r.child);
          edge(r.child, r.parent);
        }
      }
      // A table whose parent row goes with the project goes with it too (runs with their export).
      const goes = new Set(direct);
      for (let changed = true; changed; ) {
        changed = false;
        for (const [child, of] of parents)
          if (!goes.has(child) && [...of].some((p) => goes.has(p))) {
            goes.add(child);
            changed = true;
          }
      }
      const missing = [...teamTables].filter((t) => t !== 'teams' && !goes.has(t)).sort();
      expect(missing).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
