import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEventsStore } from '../../src/store/events/store.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';
import { runTs } from '../helpers/process.js';

/**
 * kill -9 in the middle of a capture load: every event that got a 200 must be there after a
 * restart, and the stores must open cleanly.
 */
// With INGEST_WRITERS=2 two inserts run at once on their own sessions: each still answers its own.
describe.each(['1', '2'])(`capture durability under kill -9 (${backend}, INGEST_WRITERS=%s)`, (writers) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-kill-'));
  let schema: string | undefined;
  afterAll(async () => {
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no acknowledged event', async () => {
    schema = await freshSchema();
    const env = {
      BURROW_DATA_DIR: dataDir,
      PORT: '0',
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
      INGEST_BATCH_DELAY_MS: '5',
      INGEST_WRITERS: writers,
    };
    const server = runTs('src/main.ts', [], env);
    const base = JSON.parse(await server.waitFor(/burrow ready/)).url as string;
    const token = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).project_api_key as string;

    const acked = new Set<string>();
    let sent = 0;
    let stop = false;
    const worker = async (w: number) => {
      while (!stop) {
        const batch = Array.from({ length: 50 }, (_, i) => ({
          event: 'load',
          distinct_id: `user-${w}-${i % 5}`,
          uuid: randomUUID(),
          properties: { w },
        }));
        sent += batch.length;
        try {
          const res = await fetch(`${base}/batch/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ api_key: token, batch }),
          });
          if (res.status === 200) for (const e of batch) acked.add(e.uuid);
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));
    while (acked.size < 2000) await new Promise((r) => setTimeout(r, 20));
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    await server.exited;
    expect(sent).toBeGreaterThan(acked.size);

    // The stores open cleanly after the crash, in this process and in a restarted server.
    const events = await openEventsStore({ dataDir, database: 'burrow' });
    const found = new Set(
      (
        await events.query<{ uuid: string }>(
          `SELECT DISTINCT toString(uuid) AS uuid FROM ${events.table('events')}`,
        )
      ).map((r) => r.uuid),
    );
    await events.close();
    const missing = [...acked].filter((u) => !found.has(u));
    expect(missing).toEqual([]);

    const again = runTs('src/main.ts', [], env);
    const url = JSON.parse(await again.waitFor(/burrow ready/)).url as string;
    expect((await fetch(`${url}/_readyz`)).status).toBe(200);
    again.child.kill('SIGTERM');
    expect((await again.exited).code).toBe(0);
  }, 60_000);
});
