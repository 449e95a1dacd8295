import type { PersonRecord } from '../../store/meta/persons.js';

/**
 * Recently seen persons by (team, distinct id), so that an event for a known person costs no
 * metadata read. Safe with several API nodes because every person write checks the version it
 * read (a stale entry makes the write conflict, and the request is reprocessed without it), and a
 * failed request forgets whatever it touched.
 */
export class PersonCache {
  readonly #entries = new Map<string, PersonRecord>();
  readonly #groupTypes = new Map<string, number>();

  constructor(private readonly max = 100_000) {}

  static key(teamId: number, distinctId: string): string {
    return `${teamId}\u0000${distinctId}`;
  }

  get(teamId: number, distinctId: string): PersonRecord | undefined {
    const key = PersonCache.key(teamId, distinctId);
    const hit = this.#entries.get(key);
    if (hit) {
      // Refresh recency: Map keeps insertion order, the oldest goes first.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  set(teamId: number, distinctId: string, person: PersonRecord): void {
    const key = PersonCache.key(teamId, distinctId);
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, person);
  }

  forget(teamId: number, distinctIds: Iterable<string>): void {
    for (const d of distinctIds) this.#entries.delete(PersonCache.key(teamId, d));
  }

  groupType(teamId: number, type: string): number | undefined {
    return this.#groupTypes.get(`${teamId}\u0000${type}`);
  }

  setGroupType(teamId: number, type: string, index: number): void {
    this.#groupTypes.set(`${teamId}\u0000${type}`, index);
  }

  clear(): void {
    this.#entries.clear();
    this.#groupTypes.clear();
  }
}
