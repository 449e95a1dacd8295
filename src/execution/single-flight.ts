import { randomUUID } from 'node:crypto';
import type { RunLock } from './run-lock.js';

export interface FlightCall<T> {
  /** Does the work; only the caller that leads a flight runs it. */
  compute: (runId: string, signal: AbortSignal) => Promise<T>;
  /** After another node's run `runId` finished: its result, or null to run here after all. */
  fromOtherRun?: (runId: string) => Promise<T | null>;
  /** This caller stops waiting; the shared run is aborted once no caller waits for it. */
  signal?: AbortSignal;
}

/**
 * Identical work in flight runs once: callers with the same key join the running flight. Across
 * nodes a RunLock (Redis) makes the others wait for the holder and read its result.
 */
export interface SingleFlight {
  run<T>(key: string, call: FlightCall<T>): Promise<T>;
  /** Whether `key` is being computed (or waited for) on this node: a new caller would join it. */
  has(key: string): boolean;
}

interface Flight {
  promise: Promise<unknown>;
  controller: AbortController;
  waiters: number;
}

const LOCK_TTL_MS = 15_000;
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createSingleFlight(lock?: RunLock): SingleFlight {
  const flights = new Map<string, Flight>();

  async function lead<T>(key: string, call: FlightCall<T>, signal: AbortSignal): Promise<T> {
    const runId = randomUUID();
    if (!lock) return call.compute(runId, signal);
    let holder = await lock.tryAcquire(key, runId, LOCK_TTL_MS);
    while (holder !== null) {
      while ((await lock.holder(key)) === holder) {
        signal.throwIfAborted();
        await sleep(POLL_MS);
      }
      const theirs = call.fromOtherRun ? await call.fromOtherRun(holder) : null;
      if (theirs !== null) return theirs;
      holder = await lock.tryAcquire(key, runId, LOCK_TTL_MS);
    }
    const renew = setInterval(
      () => void lock.renew(key, runId, LOCK_TTL_MS).catch(() => {}),
      LOCK_TTL_MS / 3,
    );
    try {
      return await call.compute(runId, signal);
    } finally {
      clearInterval(renew);
      await lock.release(key, runId).catch(() => {});
    }
  }

  function join<T>(flight: Flight, signal: AbortSignal | undefined): Promise<T> {
    flight.waiters++;
    if (!signal) return flight.promise as Promise<T>;
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        flight.waiters--;
        if (flight.waiters === 0) flight.controller.abort(signal.reason);
        reject(signal.reason);
      };
      if (signal.aborted) return leave();
      signal.addEventListener('abort', leave, { once: true });
      const done = () => signal.removeEventListener('abort', leave);
      (flight.promise as Promise<T>).then(
        (value) => {
          done();
          resolve(value);
        },
        (error) => {
          done();
          reject(error);
        },
      );
    });
  }

  return {
    run<T>(key: string, call: FlightCall<T>): Promise<T> {
      const existing = flights.get(key);
      if (existing) return join<T>(existing, call.signal);
      const controller = new AbortController();
      const flight: Flight = { controller, waiters: 0, promise: Promise.resolve() };
      flight.promise = lead(key, call, controller.signal).finally(() => {
        if (flights.get(key) === flight) flights.delete(key);
      });
      // Rejections reach every caller through join(); this copy must not count as unhandled.
      flight.promise.catch(() => {});
      flights.set(key, flight);
      return join<T>(flight, call.signal);
    },
    has: (key) => flights.has(key),
  };
}
