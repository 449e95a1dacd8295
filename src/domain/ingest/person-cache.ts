import type { PersonRecord } from '../../store/meta/persons.js';

/**
 * Recently seen persons by (team, distinct id), and distinct ids seen without one (personless
 * events), so that an event for a known person or a known anonymous visitor costs no metadata
 * read. Safe with several API nodes because every person write checks the version it read (a
 * stale entry makes the write conflict, and the request is reprocessed without it), and a failed
 * request forgets whatever it touched.
 */
export class PersonCache {
  // Two generations instead of an LRU: refreshing recency by deleting and re-adding a key of a
  // large Map on every hit cost more than the rest of a cached lookup. A hit in the old
  // generation moves to the new one; when the new one holds half the maximum, the old one is
  // dropped. Keyed by team, then by the distinct id string itself (no key to build per lookup).
  // A string is a distinct id seen without a person (personless events): its deterministic id.
  #current = new Map<number, Map<string, PersonRecord | string>>();
  #previous = new Map<number, Map<string, PersonRecord | string>>();
  #size = 0;
  readonly #groupTypes = new Map<string, number>();

  constructor(private readonly max = 100_000) {}

  get(teamId: number, distinctId: string): PersonRecord | undefined {
    const hit = this.#entry(teamId, distinctId);
    return typeof hit === 'string' ? undefined : hit;
  }

  /**
   * The deterministic person id of a distinct id last seen without a person on this node, else
   * undefined. Only personless events trust it: if another node has since given the distinct id
   * a person, their rows carry the old id, which queries map to the person through the distinct
   * id anyway (hogql/schema/events.ts); an event that makes a person always asks the store.
   */
  personlessId(teamId: number, distinctId: string): string | undefined {
    const hit = this.#entry(teamId, distinctId);
    return typeof hit === 'string' ? hit : undefined;
  }

  setPersonless(teamId: number, distinctId: string, personlessId: string): void {
    this.#put(teamId, distinctId, personlessId);
  }

  set(teamId: number, distinctId: string, person: PersonRecord): void {
    this.#put(teamId, distinctId, person);
  }

  #entry(teamId: number, distinctId: string): PersonRecord | string | undefined {
    const hit = this.#current.get(teamId)?.get(distinctId);
    if (hit) return hit;
    const old = this.#previous.get(teamId)?.get(distinctId);
    if (old) this.#put(teamId, distinctId, old);
    return old;
  }

  #put(teamId: number, distinctId: string, person: PersonRecord | string): void {
    if (this.max <= 0) return;
    let team = this.#current.get(teamId);
    if (team?.has(distinctId)) {
      team.set(distinctId, person);
      return;
    }
    if (this.#size >= Math.max(1, this.max / 2)) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#size = 0;
      team = undefined;
    }
    if (!team) {
      team = new Map();
      this.#current.set(teamId, team);
    }
    // An older record for the key in the old generation is shadowed: `get` looks here first.
    team.set(distinctId, person);
    this.#size++;
  }

  forget(teamId: number, distinctIds: Iterable<string>): void {
    const current = this.#current.get(teamId);
    const previous = this.#previous.get(teamId);
    for (const d of distinctIds) {
      if (current?.delete(d)) this.#size--;
      previous?.delete(d);
    }
  }

  groupType(teamId: number, type: string): number | undefined {
    return this.#groupTypes.get(`${teamId}\u0000${type}`);
  }

  setGroupType(teamId: number, type: string, index: number): void {
    this.#groupTypes.set(`${teamId}\u0000${type}`, index);
  }

  clear(): void {
    this.#current.clear();
    this.#previous.clear();
    this.#groupTypes.clear();
  }
}
