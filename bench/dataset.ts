/**
 * The generated-events dataset the query and insight benchmarks share: opens (or creates) a data
 * dir, bootstraps it, fills it to `rows` events with bench/event-generator.ts, and serves the API
 * on loopback. A dir passed again with `--dir` is reused as it is.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { bootstrap } from '../src/domain/organizations/bootstrap.js';
import { loadParser } from '../src/hogql/parse.js';
import { buildApp } from '../src/server/app.js';
import { writeBootstrapFile } from '../src/server/bootstrap-file.js';
import { openStores } from '../src/server/runtime.js';
import { insertDistinctIds, insertPersons } from '../test/helpers/events-insert.js';
import { chTime, eventLineAt, generator, personRows } from './event-generator.js';

/** `--rows`, `--runs` and `--dir` from the command line. */
export function benchArgs(defaultRuns: number): { rows: number; runs: number; dir: string | undefined } {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '10000000' },
      runs: { type: 'string', default: String(defaultRuns) },
      dir: { type: 'string' },
    },
  });
  return { rows: Number(values.rows), runs: Number(values.runs), dir: values.dir };
}

export async function openDataset(options: { rows: number; dir: string | undefined; now?: () => Date }) {
  const dataDir = options.dir ?? mkdtempSync(join(tmpdir(), 'burrow-bench-'));
  const config = loadConfig({ BURROW_DATA_DIR: dataDir, LOG_LEVEL: 'error' });
  const stores = await openStores(config);
  const now = options.now ?? (() => new Date());
  const boot = await bootstrap(
    { meta: stores.meta.db, now },
    { adminEmail: config.adminEmail, adminApiKey: config.adminApiKey },
  );
  // Written so that a later run with the same --dir finds the key (the server does this on first start).
  if (boot) writeBootstrapFile(dataDir, boot);
  const creds = boot ?? JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
  const team = creds.project_id as number;
  const events = stores.events;

  const [counted] = await events.query<{ n: number }>(`SELECT count() AS n FROM ${events.table('events')}`);
  const have = Number(counted?.n ?? 0);
  if (have < options.rows) {
    console.log(`generating ${options.rows} events...`);
    const g = generator();
    const t0 = performance.now();
    const written = chTime(new Date().toISOString());
    for (let i = have; i < options.rows; i += 100_000) {
      const lines: string[] = [];
      for (let j = i; j < Math.min(options.rows, i + 100_000); j++)
        lines.push(eventLineAt(g, j, team, written));
      // The encoded insert capture uses (JSON objects read into the String columns).
      await events.insertEncoded('events', Buffer.from(lines.join('')));
      // Ten million rows take most of an hour on a shared machine: say how far it is. An
      // interrupted run resumes from the rows already there when given the same --dir.
      const done = Math.min(options.rows, i + 100_000);
      if (done % 1_000_000 === 0 || done === options.rows)
        console.log(`  ${done} events, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    console.log('persons, then OPTIMIZE TABLE events FINAL...');
    const { persons, pdis } = personRows(team);
    await insertPersons(events, persons);
    await insertDistinctIds(events, pdis);
    await events.command(`OPTIMIZE TABLE ${events.table('events')} FINAL`);
    console.log(`generated in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }

  await loadParser();
  const app = await buildApp({ config, meta: stores.meta, events, bus: stores.bus, now });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    team,
    key: creds.personal_api_key as string,
    events,
    url,
    async close() {
      await app.close();
      await stores.close();
    },
  };
}
