import { sha1Prefix60 } from './sha1.js';
import type { Variant } from './types.js';

/** 2^60 - 1 (15 hex digits); as a double it rounds to 2^60, exactly as in PostHog's SDKs and Python. */
const LONG_SCALE = 2 ** 60;

/**
 * PostHog's bucketing hash: SHA-1 of `key.identifier` + salt, the first 15 hex digits read as a
 * number in [0, 1]. The same identifier always lands in the same bucket for the same flag, on every
 * server and SDK.
 */
export function flagHash(flagKey: string, identifier: string, salt = ''): number {
  return sha1Prefix60(`${flagKey}.${identifier}${salt}`) / LONG_SCALE;
}

/** The variant whose cumulative rollout range holds the identifier's variant hash. */
export function variantFor(flagKey: string, identifier: string, variants: readonly Variant[]): string | null {
  const hash = flagHash(flagKey, identifier, 'variant');
  let low = 0;
  for (const v of variants) {
    const high = low + v.rollout_percentage / 100;
    if (hash >= low && hash < high) return v.key;
    low = high;
  }
  return null;
}
