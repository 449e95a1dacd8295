import { randomUUID } from 'node:crypto';
import { createScheduler, type Scheduler } from '../../src/domain/batch-exports/scheduler.js';
import { exportDeps } from '../../src/server/batch-exports.js';
import { formatTimestamp } from '../../src/store/events/insert.js';
import { type EventRow, insertEvents } from './events-insert.js';
import type { Harness } from './harness.js';

/** A clock the test moves by hand; `null` means real time. */
export function testClock(start: string | null) {
  let at: Date | null = start ? new Date(start) : null;
  return {
    now: () => at ?? new Date(),
    set(iso: string | null) {
      at = iso ? new Date(iso) : null;
    },
  };
}

const ch = (iso: string) => formatTimestamp(new Date(iso));

/** Events written straight to the events store, arriving (`inserted_at`) at the given time. */
export async function insertArrived(
  h: Harness,
  teamId: number,
  arrivals: Array<{ at: string; uuid?: string; event?: string; properties?: Record<string, unknown> }>,
): Promise<string[]> {
  const rows: EventRow[] = arrivals.map((a, i) => ({
    uuid: a.uuid ?? randomUUID(),
    event: a.event ?? 'exported',
    properties: JSON.stringify(a.properties ?? { i, text: 'tab\there "quoted" \\ back' }),
    timestamp: ch(a.at),
    team_id: teamId,
    distinct_id: `user-${i % 3}`,
    inserted_at: ch(a.at),
  }));
  await insertEvents(h.stores.events, rows);
  return rows.map((r) => r.uuid);
}

/** A scheduler over the harness' stores (the app's own is disabled in these tests). */
export function schedulerFor(h: Harness): Scheduler {
  const silent = { error: (o: object, m: string) => console.error(m, o), info: () => {} };
  return createScheduler(exportDeps(h.config, h.deps), silent);
}

/** One scheduler pass, then wait for the runs it started. */
export async function drain(s: Scheduler, passes = 1): Promise<void> {
  for (let i = 0; i < passes; i++) {
    await s.tick();
    await s.idle();
  }
}
