/**
 * Event uuids this node wrote recently, per project. A retried request (an SDK resending after a
 * timeout or a 5xx) is dropped before person work and before the insert, so views fed by inserts
 * (`sessions`) do not count it twice. `events` itself collapses duplicates anyway (read with
 * FINAL); this only narrows the window. Uuids are remembered after their write succeeded.
 */
export class RecentUuids {
  readonly #seen = new Set<string>();

  constructor(private readonly max = 200_000) {}

  has(teamId: number, uuid: string): boolean {
    return this.#seen.has(`${teamId}:${uuid}`);
  }

  remember(teamId: number, uuids: Iterable<string>): void {
    for (const uuid of uuids) {
      const key = `${teamId}:${uuid}`;
      if (this.#seen.has(key)) continue;
      if (this.#seen.size >= this.max) this.#seen.delete(this.#seen.values().next().value as string);
      this.#seen.add(key);
    }
  }
}
