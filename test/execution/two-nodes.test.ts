import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchema } from '../helpers/harness.js';
import { runTs, type Spawned } from '../helpers/process.js';

/**
 * Two server processes sharing PostgreSQL and Redis: a query started on one node is seen and
 * cancelled through the other. Needs both servers, so it runs in the PostgreSQL + Redis pass.
 */
const servers = !!process.env.DATABASE_URL && !!process.env.REDIS_URL;

describe.skipIf(!servers)('query status and cancel across two nodes', () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'burrow-node-a-')), mkdtempSync(join(tmpdir(), 'burrow-node-b-'))];
  const nodes: Spawned[] = [];
  let schema: string | undefined;
  afterAll(async () => {
    for (const n of nodes) n.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => n.exited));
    if (schema) await dropSchema(schema);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('any node answers status and cancel', async () => {
    schema = await freshSchema();
    const key = 'phx_twonodetestkey0000000000000001';
    const env = (dir: string) => ({
      BURROW_DATA_DIR: dir,
      PORT: '0',
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: process.env.REDIS_URL,
      REDIS_KEY_PREFIX: `burrow-two-nodes-${process.pid}:`,
      BURROW_ADMIN_API_KEY: key,
    });
    nodes.push(runTs('src/main.ts', [], env(dirs[0] as string)));
    const a = JSON.parse(await nodes[0]!.waitFor(/burrow ready/, 60_000)).url as string;
    nodes.push(runTs('src/main.ts', [], env(dirs[1] as string)));
    const b = JSON.parse(await nodes[1]!.waitFor(/burrow ready/, 60_000)).url as string;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const me = (await (await fetch(`${a}/api/users/@me/`, { headers })).json()) as { team: { id: number } };
    const project = me.team.id as number;
    const path = `/api/environments/${project}/query/`;

    const started = await fetch(`${a}${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        query: {
          kind: 'HogQLQuery',
          query: 'SELECT count() FROM numbers(100000000000) WHERE sipHash64(number) = 1',
        },
        refresh: 'force_async',
        client_query_id: 'two-nodes-slow',
      }),
    });
    expect(started.status).toBe(202);
    await new Promise((r) => setTimeout(r, 500));
    const seen = await fetch(`${b}${path}two-nodes-slow/?show_progress=true`, { headers });
    expect(seen.status).toBe(202);
    expect(((await seen.json()) as { query_status: unknown }).query_status).toMatchObject({
      id: 'two-nodes-slow',
      complete: false,
    });

    expect((await fetch(`${b}${path}two-nodes-slow/`, { method: 'DELETE', headers })).status).toBe(204);
    let status = 202;
    let body: { query_status: { error_message: string | null } } | undefined;
    for (let i = 0; i < 100 && status === 202; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${a}${path}two-nodes-slow/`, { headers });
      status = res.status;
      body = (await res.json()) as typeof body;
    }
    expect(status).toBe(400);
    expect(body?.query_status.error_message).toBe('Query was cancelled.');
  }, 120_000);
});
