import { LOWER_HEX } from '../../capture/uuid.js';

/**
 * Event uuids this node wrote recently, per project. A retried request (an SDK resending after a
 * timeout or a 5xx) is dropped before person work and before the insert, so views fed by inserts
 * (`sessions`) do not count it twice. `events` itself collapses duplicates anyway (read with
 * FINAL); this only narrows the window. Uuids are remembered after their write succeeded.
 *
 * Two generations instead of one set trimmed oldest-first (deleting from a large Set one entry at
 * a time cost about 3 µs per event under capture load); between `max / 2` and `max` uuids are
 * remembered. Each generation is an open-addressing table of the uuids' 128 bits and the project
 * id in one typed array, not a Set of strings: under capture load two Set lookups per event (one
 * per generation, each a string hash and compare in a table of 100k strings spread over the heap)
 * took 8-9% of the main thread; here a lookup reads one or two cache lines (docs/benchmarks-history.md,
 * "Issue 22, session 7"). Anything that is not a lower-case hyphenated uuid (normalising makes every
 * event's so) goes to a plain Set of the same generation.
 */
export class RecentUuids {
  #current: Generation;
  #previous: Generation;

  constructor(private readonly max = 200_000) {
    const perGeneration = Math.max(1, Math.floor(max / 2));
    this.#current = new Generation(perGeneration);
    this.#previous = new Generation(perGeneration);
  }

  has(teamId: number, uuid: string): boolean {
    const words = parseUuid(uuid);
    if (!words) return this.#current.hasOther(teamId, uuid) || this.#previous.hasOther(teamId, uuid);
    const current = this.#current;
    const previous = this.#previous;
    return (
      (current.mightHave(teamId) && current.find(teamId) >= 0) ||
      (previous.mightHave(teamId) && previous.find(teamId) >= 0)
    );
  }

  remember(teamId: number, uuids: Iterable<string>): void {
    for (const uuid of uuids) {
      if (this.#current.size >= this.max / 2) {
        const old = this.#previous;
        this.#previous = this.#current;
        old.clear();
        this.#current = old;
      }
      if (parseUuid(uuid)) this.#current.add(teamId);
      else this.#current.addOther(teamId, uuid);
    }
  }
}

/** Words of a slot: uuid (4 × 32 bits), project id (low, high 32 bits), used, spare. */
const SLOT = 8;
const TWO_32 = 2 ** 32;

/** The last `parseUuid` result: the 128 bits as four unsigned 32-bit words. */
const parsed = new Uint32Array(4);

/** Eight hex digits of `uuid` at these offsets as one word, or -1. */
function word(uuid: string, o0: number, o1: number): number {
  let w = 0;
  for (let k = 0; k < 4; k++) {
    const v = LOWER_HEX[uuid.charCodeAt(o0 + k)] as number;
    if (v < 0) return -1;
    w = (w << 4) | v;
  }
  for (let k = 0; k < 4; k++) {
    const v = LOWER_HEX[uuid.charCodeAt(o1 + k)] as number;
    if (v < 0) return -1;
    w = (w << 4) | v;
  }
  return w >>> 0;
}

/** Fills `parsed` from a lower-case hyphenated uuid; false for anything else. */
function parseUuid(uuid: string): boolean {
  if (uuid.length !== 36) return false;
  if (uuid.charCodeAt(8) !== 45 || uuid.charCodeAt(13) !== 45 || uuid.charCodeAt(18) !== 45) return false;
  if (uuid.charCodeAt(23) !== 45) return false;
  const a = word(uuid, 0, 4);
  const b = word(uuid, 9, 14);
  const c = word(uuid, 19, 24);
  const d = word(uuid, 28, 32);
  if (a < 0 || b < 0 || c < 0 || d < 0) return false;
  parsed[0] = a;
  parsed[1] = b;
  parsed[2] = c;
  parsed[3] = d;
  return true;
}

/** One generation: a table of up to `capacity` parsed uuids (load ≤ 0.5), and a Set for others. */
/** One bit per 2^20 hash values: 128 KiB, which stays in the CPU's cache where the tables do not. */
const FILTER_BITS = 20;

/** The table index hash of the `parsed` uuid for a project. */
function hashOf(teamId: number): number {
  // v4 and v7 uuids both end in random bits; the project id is mixed in so that two projects'
  // equal uuids do not share a probe chain.
  const c = parsed[2] as number;
  const d = parsed[3] as number;
  return Math.imul(d ^ Math.imul(c, 0x9e3779b1) ^ Math.imul(teamId >>> 0, 0x85ebca6b), 0xc2b2ae35) >>> 0;
}

class Generation {
  #slots: Uint32Array;
  /**
   * A one-hash Bloom filter in front of the table: most uuids are new, and for them a lookup
   * then reads this small array instead of missing the cache in the large one (about 1 in 10
   * still probes the table at 100k entries).
   */
  #filter = new Uint32Array(2 ** FILTER_BITS / 32);
  readonly #mask: number;
  #others = new Map<number, Set<string>>();
  size = 0;

  constructor(capacity: number) {
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.#slots = new Uint32Array(slots * SLOT);
    this.#mask = slots - 1;
  }

  /** False when the `parsed` uuid is surely not here for `teamId`. */
  mightHave(teamId: number): boolean {
    const bit = hashOf(teamId) >>> (32 - FILTER_BITS);
    return ((this.#filter[bit >>> 5] as number) & (1 << (bit & 31))) !== 0;
  }

  /** The slot of the `parsed` uuid for `teamId`, or -1 - the free slot where it would go. */
  find(teamId: number): number {
    const s = this.#slots;
    const a = parsed[0] as number;
    const b = parsed[1] as number;
    const c = parsed[2] as number;
    const d = parsed[3] as number;
    const low = teamId >>> 0;
    const high = Math.floor(teamId / TWO_32) >>> 0;
    let i = hashOf(teamId) & this.#mask;
    for (;;) {
      const at = i * SLOT;
      if (s[at + 6] === 0) return -1 - i;
      if (
        s[at] === a &&
        s[at + 1] === b &&
        s[at + 2] === c &&
        s[at + 3] === d &&
        s[at + 4] === low &&
        s[at + 5] === high
      ) {
        return i;
      }
      i = (i + 1) & this.#mask;
    }
  }

  /** Adds the `parsed` uuid for `teamId` (a no-op when it is there). */
  add(teamId: number): void {
    const found = this.find(teamId);
    if (found >= 0) return;
    const at = (-1 - found) * SLOT;
    const s = this.#slots;
    s[at] = parsed[0] as number;
    s[at + 1] = parsed[1] as number;
    s[at + 2] = parsed[2] as number;
    s[at + 3] = parsed[3] as number;
    s[at + 4] = teamId >>> 0;
    s[at + 5] = Math.floor(teamId / TWO_32) >>> 0;
    s[at + 6] = 1;
    const bit = hashOf(teamId) >>> (32 - FILTER_BITS);
    this.#filter[bit >>> 5] = (this.#filter[bit >>> 5] as number) | (1 << (bit & 31));
    this.size++;
  }

  hasOther(teamId: number, uuid: string): boolean {
    return this.#others.get(teamId)?.has(uuid) === true;
  }

  addOther(teamId: number, uuid: string): void {
    let set = this.#others.get(teamId);
    if (!set) {
      set = new Set();
      this.#others.set(teamId, set);
    }
    if (set.has(uuid)) return;
    set.add(uuid);
    this.size++;
  }

  clear(): void {
    // A new array rather than fill(0): its pages stay unmapped until used, so an idle node does
    // not hold the full tables in memory.
    this.#slots = new Uint32Array(this.#slots.length);
    this.#filter = new Uint32Array(this.#filter.length);
    this.#others = new Map();
    this.size = 0;
  }
}
