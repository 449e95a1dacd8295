import { authenticationFailed } from '../../errors.js';
import { findKeyBySecureValue, touchKey } from '../../store/meta/personal-api-keys.js';
import { findUser } from '../../store/meta/users.js';
import type { Bus } from '../../store/shared/bus.js';
import type { Deps } from '../deps.js';
import { hashPersonalApiKey } from '../ids.js';
import type { Principal } from '../principal.js';

const LAST_USED_GRANULARITY_MS = 60 * 60 * 1000;

export interface Authenticator {
  /** Resolves a raw `phx_` key to its principal; throws the 401 PostHog gives for a bad key. */
  authenticate(rawKey: string, source: 'header' | 'query'): Promise<Principal>;
  /** The principal of a key verified within the cache TTL, without waiting; else undefined. */
  peek(rawKey: string): Principal | undefined;
  /** Drops cached principals for these keys (by secure value) or for every key of a user. */
  invalidate(filter: Filter): void;
}

interface Entry {
  principal: Principal;
  expiresAt: number;
}

const INVALIDATE = 'auth:invalidate';

type Filter = { secureValue?: string; userId?: number };

/**
 * Keeps recently seen keys in memory for `ttlMs` so that a hot API key costs no metadata round
 * trip. Revocation through the API invalidates at once on this node and, over a Redis bus, on every
 * node; a change made elsewhere (the CLI) is seen within `ttlMs`.
 */
export function createAuthenticator(
  deps: Deps,
  options: { ttlMs: number; maxEntries?: number; bus?: Bus; onError?: (error: unknown) => void },
): Authenticator {
  const cache = new Map<string, Entry>();
  const maxEntries = options.maxEntries ?? 10_000;
  // Bumped by every invalidation, so a lookup that raced with a revocation is not cached.
  let generation = 0;

  function forget(filter: Filter): void {
    generation++;
    for (const [secureValue, entry] of cache) {
      if (secureValue === filter.secureValue || entry.principal.user.id === filter.userId)
        cache.delete(secureValue);
    }
  }
  // Other nodes' revocations; our own arrive here too, which is harmless.
  options.bus
    ?.subscribe(INVALIDATE, (message) => forget(message as Filter))
    .catch((error) => options.onError?.(error));

  function remember(secureValue: string, principal: Principal): void {
    if (options.ttlMs <= 0) return;
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(secureValue, { principal, expiresAt: Date.now() + options.ttlMs });
  }

  function markUsed(principal: Principal): void {
    const key = principal.key;
    if (!key) return;
    const now = deps.now();
    if (key.lastUsedAt && now.getTime() - Date.parse(key.lastUsedAt) < LAST_USED_GRANULARITY_MS) return;
    key.lastUsedAt = now.toISOString();
    // Bookkeeping only: a failure here must not fail the request.
    touchKey(deps.meta, key.id, key.lastUsedAt).catch(() => {});
  }

  return {
    peek(rawKey) {
      const cached = cache.get(hashPersonalApiKey(rawKey));
      if (!cached || cached.expiresAt <= Date.now()) return undefined;
      markUsed(cached.principal);
      return cached.principal;
    },
    async authenticate(rawKey, source) {
      const secureValue = hashPersonalApiKey(rawKey);
      const cached = cache.get(secureValue);
      if (cached && cached.expiresAt > Date.now()) {
        markUsed(cached.principal);
        return cached.principal;
      }
      cache.delete(secureValue);
      const seen = generation;
      const key = await findKeyBySecureValue(deps.meta, secureValue);
      const user = key && (await findUser(deps.meta, key.userId));
      if (!key || !user?.isActive) {
        if (!key && rawKey.startsWith('phc_')) throw authenticationFailed(PROJECT_TOKEN_AS_KEY);
        throw authenticationFailed(
          `Personal API key found in request ${source === 'header' ? 'Authorization header' : 'query string'} is invalid.`,
        );
      }
      const principal: Principal = { user, key };
      if (seen === generation) remember(secureValue, principal);
      markUsed(principal);
      return principal;
    },
    invalidate(filter) {
      forget(filter);
      options.bus?.publish(INVALIDATE, filter).catch((error) => options.onError?.(error));
    },
  };
}

/** A project token sent where a personal API key belongs: say what it is and what to use. */
export const PROJECT_TOKEN_AS_KEY =
  'This is a project API token (phc_...): it only sends events to the capture endpoints (/i/v0/e/, /batch/, /capture/). ' +
  'The API needs a personal API key (phx_...): the first one is personal_api_key in bootstrap.json in the data directory; ' +
  'create more with POST /api/personal_api_keys/ or `npm run burrow -- keys create`.';
