import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRows } from '../../src/capture/otlp-logs.js';
import { decodeEntry, encodeEntry, entryOf, TABLES } from '../../src/domain/ingest/journal-entry.js';
import { openJournalSink } from '../../src/domain/ingest/journal-sink.js';
import { chTime, type WriteSet } from '../../src/domain/ingest/rows.js';
import { migrateEvents } from '../../src/store/events/migrate.js';
import type { LogRow } from '../../src/store/events/rows.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';
import { openCaptureJournal } from '../../src/store/journal/capture-journal.js';

const TEAM = 11;
const NOW = chTime(new Date().toISOString());

const empty = (): WriteSet => ({
  events: Buffer.alloc(0),
  eventCount: 0,
  person: [],
  person_distinct_id2: [],
  groups: [],
  replay: [],
  snapshots: [],
});

function logs(bodies: string[]): LogRow[] {
  const request = {
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'journal-svc' } }] },
        scopeLogs: [{ scope: { name: 's' }, logRecords: bodies.map((b) => ({ body: { stringValue: b } })) }],
      },
    ],
  };
  return [...logRows(request, 100, NOW)].map((row) => ({ ...row, team_id: TEAM }));
}

describe('capture journal records with logs', () => {
  it('reads records written before logs had a part, and the current layout', () => {
    const set = {
      ...empty(),
      snapshots: [{ team_id: 1, session_id: 's', window_id: 'w', timestamp: NOW, data: '{}' }],
    };
    const current = Buffer.concat(encodeEntry(entryOf({ ...set, logs: logs(['a']) }, 2)));
    const decoded = decodeEntry(current);
    expect(decoded.parts).toHaveLength(TABLES.length);
    expect(decoded.parts.at(-1)?.toString()).toContain('"body":"a"');

    // The layout of the release before: a header of six lengths and six parts.
    const old = encodeEntry(entryOf(set, 1));
    const header = Buffer.alloc(4 * 7);
    header.writeUInt32LE(1, 0);
    for (let i = 0; i < 6; i++) header.writeUInt32LE((old[i + 1] as Buffer).length, 4 * (i + 1));
    const legacy = decodeEntry(Buffer.concat([header, ...old.slice(1, 7)]));
    expect(legacy.rows).toBe(1);
    expect(legacy.parts[4]?.toString()).toContain('"session_id":"s"');
    expect(legacy.parts.at(-1)?.length).toBe(0);
    expect(() => decodeEntry(Buffer.concat([header, Buffer.from('x')]))).toThrow(/no known layout/);
  });

  describe('replay (chDB)', () => {
    const root = mkdtempSync(join(tmpdir(), 'burrow-journal-logs-'));
    let store: EventsStore;
    beforeAll(async () => {
      store = await openEventsStore({ dataDir: root, database: 'journal_logs_test' });
      await migrateEvents(store);
    });
    afterAll(async () => {
      await store.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('inserts logs a crashed node acknowledged, once', async () => {
      const path = join(root, 'journal');
      const crashed = await openCaptureJournal(path);
      const rows = logs(['first', 'second', 'third']);
      await crashed.append([encodeEntry(entryOf({ ...empty(), logs: rows }, rows.length))]);
      await crashed.close();

      const sink = await openJournalSink(await openCaptureJournal(path), store, {
        maxRows: 1000,
        maxDelayMs: 10,
        maxPendingRows: 1000,
        waitMs: 10_000,
      });
      const found = await store.query<{ body: string }>(
        `SELECT body FROM ${store.table('logs')} FINAL WHERE team_id = ${TEAM} ORDER BY body`,
      );
      expect(found.map((r) => r.body)).toEqual(['first', 'second', 'third']);
      await sink.close();
    });
  });
});
