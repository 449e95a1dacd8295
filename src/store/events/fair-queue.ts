export interface FairQueueLimits {
  /** Holders at once. */
  capacity: number;
  /** Holders at once for one key (a project); below `capacity` so that one key never takes all. */
  share: number;
}

interface Waiter {
  grant: () => void;
}

/**
 * Slots handed out fairly: at most `capacity` at once, at most `share` per key, and among keys with
 * someone waiting, the one served least recently goes first (round-robin; a key not served lately
 * goes before one that just was), so a project with a hundred queued queries delays another
 * project's first query by at most one slot turnover. Within a key, first come first served.
 * Everything is synchronous bookkeeping; the caller holds a slot from `acquire` until it calls the
 * release function it got.
 */
export class FairQueue<K> {
  private holders = 0;
  private readonly held = new Map<K, number>();
  /** Keys with waiters, in arrival order (ties between keys never served). */
  private readonly waiting = new Map<K, Waiter[]>();
  /** When each key holding or waiting was last given a slot (a grant counter). */
  private readonly lastServed = new Map<K, number>();
  private grants = 0;

  constructor(private readonly limits: FairQueueLimits) {
    if (!(limits.capacity >= 1) || !(limits.share >= 1)) throw new Error('capacity and share must be >= 1');
  }

  /** Resolves with a release function once a slot is free; rejects (and leaves the line) on abort. */
  acquire(key: K, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            this.release(key);
          });
        },
      };
      const onAbort = () => {
        const line = this.waiting.get(key);
        const at = line?.indexOf(waiter) ?? -1;
        if (!line || at < 0) return; // already granted: the holder sees the signal itself
        line.splice(at, 1);
        if (line.length === 0) {
          this.waiting.delete(key);
          if (!this.held.has(key)) this.lastServed.delete(key);
        }
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const line = this.waiting.get(key);
      if (line) line.push(waiter);
      else this.waiting.set(key, [waiter]);
      this.pump();
    });
  }

  stats(): { holders: number; waiting: number; keys: number } {
    let waiting = 0;
    for (const line of this.waiting.values()) waiting += line.length;
    return { holders: this.holders, waiting, keys: this.waiting.size };
  }

  /** Slots `key` holds now. */
  heldBy(key: K): number {
    return this.held.get(key) ?? 0;
  }

  private release(key: K) {
    this.holders--;
    const left = (this.held.get(key) ?? 1) - 1;
    if (left <= 0) {
      this.held.delete(key);
      if (!this.waiting.has(key)) this.lastServed.delete(key);
    } else this.held.set(key, left);
    this.pump();
  }

  private pump() {
    while (this.holders < this.limits.capacity) {
      let next: K | undefined;
      let nextServed = Number.POSITIVE_INFINITY;
      for (const key of this.waiting.keys()) {
        if ((this.held.get(key) ?? 0) >= this.limits.share) continue;
        const served = this.lastServed.get(key) ?? -1;
        if (served < nextServed) {
          next = key;
          nextServed = served;
        }
      }
      if (next === undefined) return;
      const line = this.waiting.get(next)!;
      const waiter = line.shift()!;
      if (line.length === 0) this.waiting.delete(next);
      this.holders++;
      this.held.set(next, (this.held.get(next) ?? 0) + 1);
      this.lastServed.set(next, this.grants++);
      waiter.grant();
    }
  }
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('The query was aborted');
}
