import type { MetaDb } from '../../store/meta/db.js';
import type { PersonCache } from './person-cache.js';
import {
  type EventForPersons,
  type PersonChanges,
  type PersonEnrichment,
  processPersons,
} from './persons.js';

/**
 * A request's person work failed inside a transaction shared with other requests: everything was
 * rolled back, and each request is processed again in a transaction of its own (so one request's
 * conflict or bad input never fails another's).
 */
export class GroupRolledBack extends Error {
  constructor(override readonly cause: unknown) {
    super('a shared person transaction rolled back');
  }
}

interface Item {
  teamId: number;
  changes: PersonChanges;
  events: readonly EventForPersons[];
  resolve(persons: PersonEnrichment[]): void;
  reject(error: unknown): void;
}

export interface PersonGroupOptions {
  /** Events one shared transaction takes at most (the first request is always taken whole). */
  maxEvents: number;
  /** Shared transactions at once: 1 for SQLite's single connection, more for a PostgreSQL pool. */
  concurrency: number;
}

/**
 * Person work of concurrent requests in shared metadata transactions, as a group commit does for
 * rows: a request that finds a transaction running waits for it and then goes in the next one,
 * with everything else that arrived meanwhile. Requests are processed one after the other inside
 * it, in arrival order, each seeing what the earlier ones wrote. New persons cost far less this
 * way: SQLite writes a commit's dirty pages once, and a request of 100 new persons dirties about a
 * hundred random index pages, most of which the next requests would dirty again (bench/ingest.ts
 * `--persons`). An idle server starts a request's transaction at once.
 */
export function createPersonGroup(meta: MetaDb, cache: PersonCache, options: PersonGroupOptions) {
  const queue: Item[] = [];
  let running = 0;

  async function runGroup(group: Item[]): Promise<void> {
    const results: PersonEnrichment[][] = [];
    try {
      await meta.transaction().execute(async (trx) => {
        for (const item of group)
          results.push(await processPersons(trx, item.teamId, item.changes, cache, item.events));
      });
    } catch (error) {
      // Nothing any of them read or wrote may stay cached: the persons they made are not stored.
      for (const item of group) cache.forget(item.teamId, item.changes.seen);
      for (const item of group) item.reject(group.length === 1 ? error : new GroupRolledBack(error));
      return;
    }
    for (const [i, item] of group.entries()) item.resolve(results[i] as PersonEnrichment[]);
  }

  function pump(): void {
    while (running < options.concurrency && queue.length > 0) {
      const group: Item[] = [queue.shift() as Item];
      let events = group[0]?.events.length ?? 0;
      while (queue.length > 0 && events + (queue[0] as Item).events.length <= options.maxEvents) {
        const next = queue.shift() as Item;
        events += next.events.length;
        group.push(next);
      }
      running++;
      void runGroup(group).finally(() => {
        running--;
        pump();
      });
    }
  }

  return {
    /** The person columns of `events`, written in a transaction shared with concurrent requests. */
    process(
      teamId: number,
      changes: PersonChanges,
      events: readonly EventForPersons[],
    ): Promise<PersonEnrichment[]> {
      return new Promise((resolve, reject) => {
        queue.push({ teamId, changes, events, resolve, reject });
        pump();
      });
    },
    /** The same alone, in its own transaction (a request whose shared transaction rolled back). */
    alone(
      teamId: number,
      changes: PersonChanges,
      events: readonly EventForPersons[],
    ): Promise<PersonEnrichment[]> {
      return meta.transaction().execute((trx) => processPersons(trx, teamId, changes, cache, events));
    },
  };
}
