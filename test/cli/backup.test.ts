import { randomUUID } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openEventsStore } from '../../src/store/events/store.js';
import { backend } from '../helpers/harness.js';
import { runToEnd, runTs } from '../helpers/process.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const json = (output: string) => JSON.parse(output.slice(output.indexOf('{'))) as Record<string, unknown>;

/**
 * `burrow backup` while the server captures, kill -9 in the middle of a second backup, and
 * `burrow restore` of the last complete one: every event acknowledged before the backup began is
 * there, exactly once. Embedded stores only (with DATABASE_URL the commands point to pg_dump).
 */
describe.skipIf(backend === 'postgres')('burrow backup and restore (embedded stores)', () => {
  const root = mkdtempSync(join(tmpdir(), 'burrow-backup-'));
  const dataDir = join(root, 'data');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('refuses bad targets and damaged backups with clear messages, touching nothing', async () => {
    const env = { BURROW_DATA_DIR: join(root, 'scratch') };
    mkdirSync(join(root, 'full'));
    writeFileSync(join(root, 'full', 'x'), 'x');
    const full = await runToEnd('src/cli/main.ts', ['backup', join(root, 'full')], env);
    expect(full.code).toBe(1);
    expect(full.output).toContain('is not empty');
    const inside = await runToEnd('src/cli/main.ts', ['backup', join(root, 'scratch', 'b')], env);
    expect(inside.code).toBe(1);
    expect(inside.output).toContain('inside the data directory');

    const notABackup = await runToEnd('src/cli/main.ts', ['restore', join(root, 'full')], env);
    expect(notABackup.code).toBe(1);
    expect(notABackup.output).toContain('not a Burrow backup');
    expect(existsSync(join(root, 'scratch'))).toBe(false);

    const pg = await runToEnd('src/cli/main.ts', ['backup', join(root, 'pg')], {
      ...env,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(pg.code).toBe(1);
    expect(pg.output).toContain('pg_dump');
  });

  it('backs up while capture runs, survives a kill -9 mid-backup, and restores every acknowledged event', async () => {
    const port = await freePort();
    const env = { BURROW_DATA_DIR: dataDir, PORT: String(port), INGEST_BATCH_DELAY_MS: '200' };
    const server = runTs('src/main.ts', [], env);
    const base = JSON.parse(await server.waitFor(/burrow ready/, 60_000)).url as string;
    const token = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).project_api_key as string;

    const acked: string[] = [];
    let stop = false;
    const worker = async (w: number) => {
      for (let round = 0; !stop; round++) {
        const batch = Array.from({ length: 50 }, (_, i) => ({
          event: 'load',
          distinct_id: `user-${w}-${i % 5}`,
          uuid: randomUUID(),
          properties: { w, $session_id: `session-${w}-${round % 3}` },
        }));
        try {
          const res = await fetch(`${base}/batch/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ api_key: token, batch }),
          });
          if (res.status === 200) for (const e of batch) acked.push(e.uuid);
        } catch {
          return;
        }
      }
    };
    const workers = Array.from({ length: 4 }, (_, w) => worker(w));
    while (acked.length < 1000) await new Promise((r) => setTimeout(r, 20));

    // Everything acknowledged before the backup starts must be in it.
    const before = new Set(acked);
    const first = await runToEnd('src/cli/main.ts', ['backup', join(root, 'b1')], env);
    expect(first.code, first.output).toBe(0);
    const manifest = json(first.output);
    expect(manifest).toMatchObject({ made_by: 'server', format: 1 });
    expect(acked.length).toBeGreaterThan(before.size); // capture went on meanwhile
    expect(existsSync(join(root, 'b1', 'backup.json'))).toBe(true);
    expect(existsSync(join(root, 'b1', 'backup.incomplete'))).toBe(false);

    // A second backup, asked of the server directly, and the server killed as soon as it has begun.
    const adminToken = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
    const b2 = join(root, 'b2');
    const asked = fetch(`${base}/_admin/backup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({ dir: b2 }),
    }).catch(() => null);
    const deadline = Date.now() + 10_000;
    while (!existsSync(join(b2, 'backup.incomplete')) && Date.now() < deadline)
      await new Promise((r) => setImmediate(r));
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    await server.exited;
    await asked;
    expect(existsSync(join(b2, 'backup.incomplete'))).toBe(true);

    // Restoring the interrupted one is refused and changes nothing; the complete one comes back.
    const refused = await runToEnd('src/cli/main.ts', ['restore', b2], env);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('incomplete backup');
    const restored = await runToEnd('src/cli/main.ts', ['restore', join(root, 'b1')], env);
    expect(restored.code, restored.output).toBe(0);
    const moved = json(restored.output).moved_aside as string;
    expect(moved).toContain('before-restore');
    expect(existsSync(moved)).toBe(true);

    // Start on the restored directory (it replays the journal copy), then stop and count.
    const again = runTs('src/main.ts', [], { ...env, PORT: '0' });
    await again.waitFor(/burrow ready/, 60_000);
    again.child.kill('SIGTERM');
    await again.exited;
    const events = await openEventsStore({ dataDir, database: 'burrow', personColumnsRefreshMs: 0 });
    try {
      const rows = await events.query<{ uuid: string; n: number }>(
        `SELECT toString(uuid) AS uuid, count() AS n FROM ${events.table('events')} FINAL GROUP BY uuid`,
      );
      const found = new Map(rows.map((r) => [r.uuid, Number(r.n)]));
      const missing = [...before].filter((u) => !found.has(u));
      expect(missing).toEqual([]);
      expect([...found.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await events.close();
    }

    const doctor = await runToEnd('src/cli/main.ts', ['doctor', '--json'], { ...env, PORT: '1' });
    expect(doctor.code, doctor.output).toBe(0);

    // A damaged copy of the backup: SQLite's integrity check refuses it before anything moves.
    cpSync(join(root, 'b1'), join(root, 'b3'), { recursive: true, verbatimSymlinks: true });
    const file = join(root, 'b3', 'metadata.sqlite');
    const bytes = readFileSync(file);
    bytes.fill(0x5a, 4096, bytes.length - 4096);
    writeFileSync(file, bytes);
    const damaged = await runToEnd('src/cli/main.ts', ['restore', join(root, 'b3')], env);
    expect(damaged.code).toBe(1);
    expect(damaged.output).toMatch(/metadata\.sqlite (fails SQLite's integrity check|cannot be read)/);
    expect(readdirSync(root).filter((f) => f.startsWith('data.before-restore'))).toHaveLength(1);
  }, 180_000);
});
