import { packPrefix, sha1Packed, sha1Parts } from './sha1.js';
import type { Variant } from './types.js';

/** 2^60 - 1 (15 hex digits); as a double it rounds to 2^60, exactly as in PostHog's SDKs and Python. */
const LONG_SCALE = 2 ** 60;

/**
 * PostHog's bucketing hash: SHA-1 of `key.identifier` + salt, the first 15 hex digits read as a
 * number in [0, 1]. The same identifier always lands in the same bucket for the same flag, on every
 * server and SDK.
 */
export function flagHash(flagKey: string, identifier: string, salt = ''): number {
  return sha1Parts(flagKey, '.', identifier, salt) / LONG_SCALE;
}

/**
 * `flagHash` for one flag key, with `key.` packed once: a compiled flag hashes many identifiers,
 * and packing the key cost a fifth of a hash.
 */
export function flagHasher(flagKey: string): (identifier: string, salt: '' | 'variant') => number {
  const prefix = `${flagKey}.`;
  const words = packPrefix(prefix);
  if (words === null) return (identifier, salt) => flagHash(flagKey, identifier, salt);
  const length = prefix.length;
  return (identifier, salt) => sha1Packed(words, length, prefix, identifier, salt) / LONG_SCALE;
}

/** PostHog's holdout hash: SHA-1 of `holdout-` + identifier, with no flag key, on the same scale. */
export function holdoutHash(identifier: string): number {
  return sha1Parts('holdout-', '', identifier, '') / LONG_SCALE;
}

/**
 * Recently computed bucketing hashes by identifier, then flag key. A hash is a pure function of
 * its inputs, so a remembered one is never stale; SDKs ask for the same user's flags on every page
 * load, and a lookup costs a fraction of a SHA-1 block. Two generations bound the memory
 * (`max` hashes in all, about 100 bytes each) without an LRU's bookkeeping per hit.
 */
export class HashMemo {
  #current = new Map<string, Map<string, number>>();
  #previous = new Map<string, Map<string, number>>();
  #size = 0;

  constructor(private readonly max = 200_000) {}

  /** `salt` is '' (rollout) or 'variant'; the two live in separate maps of the identifier. */
  hash(flagKey: string, identifier: string, salt: '' | 'variant'): number {
    let byKey = this.#current.get(identifier);
    if (byKey === undefined) {
      byKey = this.#previous.get(identifier);
      if (byKey !== undefined) {
        this.#previous.delete(identifier);
        this.#adopt(identifier, byKey);
      }
    }
    const memoKey = salt === '' ? flagKey : `${flagKey}\u0000${salt}`;
    const known = byKey?.get(memoKey);
    if (known !== undefined) return known;
    const value = flagHash(flagKey, identifier, salt);
    if (this.max <= 0) return value;
    if (byKey === undefined) {
      byKey = new Map();
      this.#adopt(identifier, byKey);
    }
    byKey.set(memoKey, value);
    this.#size++;
    return value;
  }

  #adopt(identifier: string, byKey: Map<string, number>): void {
    if (this.#size >= this.max / 2) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#size = 0;
    }
    this.#current.set(identifier, byKey);
    this.#size += byKey.size;
  }
}

/** Shared by every evaluation in the process: the hashes depend on nothing else. */
export const hashMemo = new HashMemo();

/** The variant whose cumulative rollout range holds the hash (PostHog's variant lookup table). */
export function variantOf(hash: number, variants: readonly Variant[]): string | null {
  let low = 0;
  for (const v of variants) {
    const high = low + v.rollout_percentage / 100;
    if (hash >= low && hash < high) return v.key;
    low = high;
  }
  return null;
}

/** The variant whose cumulative rollout range holds the identifier's variant hash. */
export function variantFor(flagKey: string, identifier: string, variants: readonly Variant[]): string | null {
  return variantOf(flagHash(flagKey, identifier, 'variant'), variants);
}
