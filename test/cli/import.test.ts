import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
