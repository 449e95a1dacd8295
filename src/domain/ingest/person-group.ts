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
  /**
   * How long a request waits for others before a free transaction starts, while other requests
   * are in flight (`inFlight`; 0: never waits). Requests reach person work one by one, so
   * without the wait every transaction held about one request (bench/ingest.ts `--persons
   * 100000`: 112–125 events a transaction on average; about 1 000 with a 10 ms wait). Waiting
   * only for requests still being decoded formed no groups: the next requests are mostly still
   * on the network, sent once the requests waiting for their rows' write are answered.
   */
  delayMs?: number;
  /**
   * Requests in the ingest pipeline now, these waiting here included: with no other, a request's
   * transaction starts at once (a client sending one request at a time never waits).
   */
  inFlight?: () => number;
}

/**
 * Person work of concurrent requests in shared metadata transactions, as a group commit does for
 * rows: a request that finds a transaction running waits for it and then goes in the next one,
 * with everything else that arrived meanwhile. Requests are processed one after the other inside
 * it, in arrival order, each seeing what the earlier ones wrote. New persons cost far less this
 * way: SQLite writes a commit's dirty pages once, and a request of 100 new persons dirties about a
 * hundred random index pages, most of which the next requests would dirty again (bench/ingest.ts
 * `--persons`). While other requests are in flight a free transaction waits `delayMs` for more
 * (they arrive one at a time); with none, a request's transaction starts at once.
 */
export function createPersonGroup(meta: MetaDb, cache: PersonCache, options: PersonGroupOptions) {
  const queue: Item[] = [];
  let queuedEvents = 0;
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Requests in the transactions running now. */
  let inTransactions = 0;

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

  /**
   * Starts what waits if a transaction is free and there is no reason to wait: the group is full,
   * or the server was idle (its first request after a pause goes at once).
   */
  function schedule(): void {
    if (running >= options.concurrency || queue.length === 0) return;
    const others = (options.inFlight?.() ?? 0) - queue.length - inTransactions;
    const delayMs = options.delayMs ?? 0;
    if (others <= 0 || delayMs <= 0 || queuedEvents >= options.maxEvents) {
      pump();
    } else if (!timer) {
      timer = setTimeout(pump, delayMs);
    }
  }

  function pump(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    while (running < options.concurrency && queue.length > 0) {
      const group: Item[] = [queue.shift() as Item];
      let events = group[0]?.events.length ?? 0;
      while (queue.length > 0 && events + (queue[0] as Item).events.length <= options.maxEvents) {
        const next = queue.shift() as Item;
        events += next.events.length;
        group.push(next);
      }
      queuedEvents -= events;
      running++;
      inTransactions += group.length;
      void runGroup(group).finally(() => {
        running--;
        inTransactions -= group.length;
        // What arrived during this transaction waited for it: it goes now, without a further wait.
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
        queuedEvents += events.length;
        schedule();
      });
    },
    /** Looks again at what waits (a request left the pipeline: maybe nobody else will come). */
    poke: () => schedule(),
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
