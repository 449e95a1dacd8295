import { type CompiledFlag, compileFlag } from './evaluate.js';
import type { ConditionGroup, FlagDefinition, FlagResult } from './types.js';

/** What is kept for one recent distinct id. */
export interface IdMemo {
  /** Bucketing hashes by flag slot: rollout at 2·slot, variant at 2·slot + 1, -1 until computed. */
  readonly hashes: Float64Array;
  /**
   * The id's last answer over the whole set (frozen, no failed flag): a request whose outcomes are
   * all the same shared results hands this very array out again, so the answer's bytes can be
   * remembered with it (`flagsJson`) and nothing is allocated per flag.
   */
  results: readonly FlagResult[] | null;
  /**
   * What `results` was evaluated from, when nothing else could change it (see
   * `CompiledFlagSet.timeless`): the person read (the same object while the person cache holds it),
   * its continuity keys, the anonymous id and the request's own person properties. A request with
   * the same inputs gets `results` without evaluating a flag. Null when not reusable.
   */
  inputs: EvaluationInputs | null;
}

/** The inputs of an evaluation that make its results reusable; compared by identity or value. */
export interface EvaluationInputs {
  readonly person: object | undefined;
  readonly overrides: ReadonlyMap<string, string>;
  readonly anon: string | null;
  readonly sent: Record<string, unknown>;
}

/**
 * A project's active flags compiled once per flag-set version (the cache builds one per snapshot,
 * and a change makes a new snapshot), with the bucketing hashes of recent distinct ids.
 *
 * Hashes are kept per distinct id as one Float64Array indexed by flag slot: a request for a known
 * id reads 2 numbers per flag by index, with no string key built and nothing allocated. An id seen
 * for the first time without a stored person (a new visitor, or a server SDK asking about ids it
 * made up) is hashed without being remembered: most are never seen again, and remembering them
 * cost an array per request. A second request for it (a page load after the first) remembers it.
 * Two generations bound the memory (about `budget` numbers and as many result pointers in all) without an LRU's bookkeeping per hit.
 */
export class CompiledFlagSet {
  readonly flags: readonly CompiledFlag[];
  /**
   * No flag reads the clock (date operators, relative or not, are compared with the request's
   * time) or a cohort (membership changes in the store): the answer is a function of the person,
   * the request and the definitions alone, so an id's remembered answer may be handed out again
   * for the same inputs (`IdMemo.inputs`).
   */
  readonly timeless: boolean;
  readonly #width: number;
  readonly #maxIds: number;
  #current = new Map<string, IdMemo>();
  #previous = new Map<string, IdMemo>();
  #seen = new Set<string>();
  readonly #scratch: Float64Array;
  #seenBefore = new Set<string>();

  constructor(active: readonly FlagDefinition[], budget = 2_000_000) {
    this.flags = active.map((f, i) => compileFlag(f, i));
    this.timeless = active.every(isTimeless);
    this.#width = 2 * active.length;
    this.#scratch = new Float64Array(this.#width);
    this.#maxIds = Math.max(64, Math.floor(budget / 2 / Math.max(1, this.#width)));
  }

  /**
   * Hash slots for one request of an id that is not remembered, emptied: a flag's conditions share
   * its hash. Shared by every such request, so valid only until the evaluation's next await
   * (evaluating the flags is synchronous).
   */
  scratchHashes(): Float64Array {
    return this.#scratch.fill(-1);
  }

  /** What is kept for `distinctId`, or null when it is not worth remembering yet (see above). */
  memoFor(distinctId: string, stored: boolean): IdMemo | null {
    let memo = this.#current.get(distinctId);
    if (memo !== undefined) return memo;
    memo = this.#previous.get(distinctId);
    if (memo === undefined) {
      if (!stored && !this.#seen.has(distinctId) && !this.#seenBefore.has(distinctId)) {
        if (this.#seen.size >= SEEN_MAX) {
          this.#seenBefore = this.#seen;
          this.#seen = new Set();
        }
        this.#seen.add(distinctId);
        return null;
      }
      memo = { hashes: new Float64Array(this.#width).fill(-1), results: null, inputs: null };
    } else this.#previous.delete(distinctId);
    if (this.#current.size >= this.#maxIds) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(distinctId, memo);
    return memo;
  }
}

/** Ids seen once without a person, per generation: a string each, whatever the number of flags. */
const SEEN_MAX = 50_000;

/** A definition whose outcome depends on neither the time nor a cohort (see `timeless`). */
function isTimeless(flag: FlagDefinition): boolean {
  const groups: ConditionGroup[] = [...(flag.filters.groups ?? []), ...(flag.filters.super_groups ?? [])];
  return groups.every((g) =>
    (g.properties ?? []).every(
      (p) => p.type !== 'cohort' && !(typeof p.operator === 'string' && p.operator.startsWith('is_date')),
    ),
  );
}
