import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MetaStore, openMetaStore } from '../../src/store/meta/db.js';

const at = '2026-01-01T00:00:00.000Z';
const org = (n: number) => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  name: `Org ${n}`,
  slug: `org-${n}`,
  created_at: at,
  updated_at: at,
});

/** Burrow's own Kysely driver for better-sqlite3: one connection, handed out in turn. */
describe('SQLite driver', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-sqlite-'));
  let store: MetaStore;
  beforeAll(async () => {
    store = await openMetaStore({ dataDir });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const count = async () =>
    Number(
      (
        await store.db
          .selectFrom('organizations')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('keeps other queries out of an open transaction, so they never see rolled-back rows', async () => {
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const trx = store.db
      .transaction()
      .execute(async (t) => {
        await t.insertInto('organizations').values(org(1)).execute();
        inside();
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('roll back');
      })
      .catch((e: Error) => e.message);
    await entered;
    const seenDuring = count();
    expect(await trx).toBe('roll back');
    expect(await seenDuring).toBe(0);
  });

  it('runs many concurrent queries in arrival order', async () => {
    await store.db.insertInto('organizations').values(org(2)).execute();
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.db
          .selectFrom('organizations')
          .select('id')
          .execute()
          .then(() => order.push(i)),
      ),
    );
    expect(order).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('binds booleans and reuses prepared statements across different values', async () => {
    await store.db
      .updateTable('organizations')
      .set({ members_can_use_personal_api_keys: false })
      .where('id', '=', org(2).id)
      .execute();
    const row = await store.db
      .selectFrom('organizations')
      .select('members_can_use_personal_api_keys as v')
      .where('id', '=', org(2).id)
      .executeTakeFirstOrThrow();
    expect(row.v).toBe(0);
    const missing = await store.db
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', org(9).id)
      .execute();
    expect(missing).toEqual([]);
  });
});
