import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgress } from '../../src/cli/import-progress.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';
import { runToEnd } from '../helpers/process.js';

describe(`burrow import (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness({ INGEST_BATCH_DELAY_MS: '2' });
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h?.close();
  });

  const cli = (...args: string[]) =>
    runToEnd('src/cli/main.ts', args, {
      BURROW_DATA_DIR: h.config.dataDir,
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: h.config.databaseSchema,
    });
  const count = async (event: string) =>
    (
      await h.stores.events.query<{ n: number }>(
        `SELECT count() AS n FROM ${h.stores.events.table('events')} WHERE team_id = {t:Int64} AND event = {e:String}`,
        { params: { t: h.boot.project_id, e: event } },
      )
    )[0]?.n;

  it('imports JSON Lines through capture and reports rejects with their line and reason', async () => {
    const file = join(h.config.dataDir, 'events.jsonl');
    const good = Array.from({ length: 2500 }, (_, i) =>
      JSON.stringify({
        event: 'imported',
        distinct_id: `u${i % 10}`,
        timestamp: '2026-10-01T12:00:00Z',
        properties: { i },
      }),
    );
    writeFileSync(
      file,
      [...good.slice(0, 3), '{not json', '', JSON.stringify({ distinct_id: 'x' }), ...good.slice(3)].join(
        '\n',
      ),
    );
    const { code, output } = await cli(
      'import',
      file,
      '--project',
      String(h.boot.project_id),
      '--host',
      base,
    );
    const summary = JSON.parse(output.slice(output.indexOf('{')));
    expect(code).toBe(1);
    expect(summary).toMatchObject({ rows: 2502, imported: 2500, rejected: 2 });
    expect(summary.rejects).toEqual([
      { line: 4, reason: 'invalid JSON' },
      { line: 6, reason: 'missing event' },
    ]);
    expect(await count('imported')).toBe(2500);
  });

  it('imports CSV with properties columns', async () => {
    const file = join(h.config.dataDir, 'events.csv');
    writeFileSync(
      file,
      'event,distinct_id,timestamp,properties.plan,properties\n' +
        'csv row,a,2026-10-02T00:00:00Z,pro,"{""n"":1}"\n' +
        'csv row,b,2026-10-02T00:00:01Z,free,\n',
    );
    const { code, output } = await cli('import', file, '--token', h.boot.project_api_key, '--host', base);
    expect(code).toBe(0);
    expect(JSON.parse(output.slice(output.indexOf('{')))).toMatchObject({
      rows: 2,
      imported: 2,
      rejected: 0,
    });
    const rows = await h.stores.events.query<{ properties: string; timestamp: string }>(
      `SELECT properties, timestamp FROM ${h.stores.events.table('events')} WHERE event = 'csv row' ORDER BY timestamp`,
    );
    expect(JSON.parse(rows[0]?.properties ?? '{}')).toMatchObject({ plan: 'pro', n: 1 });
    expect(rows[0]?.timestamp).toBe('2026-10-02 00:00:00.000000');
  });

  it('rejects a bad timestamp with its line, and ends with a line matching the summary', async () => {
    const file = join(h.config.dataDir, 'times.jsonl');
    const rows = Array.from({ length: 5001 }, (_, i) =>
      JSON.stringify({
        event: 'timed',
        distinct_id: 'u',
        timestamp: '2026-10-01T12:00:00Z',
        properties: { i },
      }),
    );
    rows.splice(2, 0, JSON.stringify({ event: 'timed', distinct_id: 'u', timestamp: 'yesterday-ish' }));
    writeFileSync(file, rows.join('\n'));
    const { code, output } = await cli(
      'import',
      file,
      '--project',
      String(h.boot.project_id),
      '--host',
      base,
    );
    const summary = JSON.parse(output.slice(output.indexOf('{')));
    expect(code).toBe(1);
    expect(summary).toMatchObject({ rows: 5002, imported: 5001, rejected: 1 });
    expect(summary.rejects).toEqual([
      { line: 3, reason: expect.stringMatching(/^invalid timestamp "yesterday-ish"/) },
    ]);
    // stderr is not a terminal here: plain lines, and the last one says what the summary says.
    const lines = output.split('\n');
    const last = lines.filter((l) => l.startsWith('imported '));
    expect(last).toHaveLength(1);
    expect(last[0]).toMatch(/^imported 5,001 events, rejected 1 \(5,002 rows in /);
    expect(output).not.toContain('\r');
    expect(await count('timed')).toBe(5001);
  });

  it('names the host it could not reach and the data directory without a bootstrap', async () => {
    const file = join(h.config.dataDir, 'one.jsonl');
    writeFileSync(file, JSON.stringify({ event: 'x', distinct_id: 'u' }));
    const down = await cli(
      'import',
      file,
      '--project',
      String(h.boot.project_id),
      '--host',
      'http://127.0.0.1:9',
    );
    expect(down.code).toBe(1);
    expect(down.output).toContain('cannot reach a Burrow server at http://127.0.0.1:9');
    const empty = mkdtempSync(join(tmpdir(), 'burrow-noboot-'));
    const noBoot = await runToEnd('src/cli/main.ts', ['import', file, '--host', base], {
      BURROW_DATA_DIR: empty,
    });
    expect(noBoot.code).toBe(1);
    expect(noBoot.output).toContain(`no bootstrap.json in the data directory ${empty}`);
  });

  it('draws a bar with total, rate and time left on a terminal', () => {
    let t = 0;
    const out: string[] = [];
    const p = createProgress({
      total: 1000,
      tty: true,
      columns: 100,
      write: (s) => out.push(s),
      now: () => t,
    });
    t = 1000;
    p.update(250, 0);
    expect(out[0]?.startsWith('\r\x1b[2K[')).toBe(true);
    expect(out[0]).toMatch(/#+\.+\] {2}25% 250\/1,000 rows · 250 rows\/s · 0:03 left$/);
    t = 4000;
    p.finish({ rows: 1000, imported: 990, rejected: 10, seconds: 4, rate: 247.5 });
    expect(out[1]).toBe('\r\x1b[2Kimported 990 events, rejected 10 (1,000 rows in 4.00 s, 248 events/s)\n');
  });
});
