/**
 * Event uuids this node wrote recently, per project. A retried request (an SDK resending after a
 * timeout or a 5xx) is dropped before person work and before the insert, so views fed by inserts
 * (`sessions`) do not count it twice. `events` itself collapses duplicates anyway (read with
 * FINAL); this only narrows the window. Uuids are remembered after their write succeeded.
 *
 * Two generations instead of one set trimmed oldest-first: deleting from a large Set one entry at
 * a time and keying by `team:uuid` strings cost about 3 µs per event under capture load. Between
 * `max / 2` and `max` uuids are remembered.
 */
export class RecentUuids {
  #current = new Map<number, Set<string>>();
  #previous = new Map<number, Set<string>>();
  #size = 0;

  constructor(private readonly max = 200_000) {}

  has(teamId: number, uuid: string): boolean {
    return this.#current.get(teamId)?.has(uuid) === true || this.#previous.get(teamId)?.has(uuid) === true;
  }

  remember(teamId: number, uuids: Iterable<string>): void {
    let set = this.#current.get(teamId);
    // No lookup first: callers pass uuids they just found fresh, and a repeat is a no-op add.
    for (const uuid of uuids) {
      if (this.#size >= this.max / 2) {
        this.#previous = this.#current;
        this.#current = new Map();
        this.#size = 0;
        set = undefined;
      }
      if (!set) {
        set = new Set();
        this.#current.set(teamId, set);
      }
      set.add(uuid);
      this.#size++;
    }
  }
}
