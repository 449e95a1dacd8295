import { createHash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';

// Keys sorted at every level; undefined members dropped, as JSON does; cycles are an error.
const canonical = configure({ deterministic: true, circularValue: Error, bigint: true });

/** Bumped whenever the shape of cached results changes, so old entries are never read back. */
const CACHE_VERSION = 1;

export interface CacheKeyInput {
  teamId: number;
  timezone: string;
  /** The query node after overrides and unwrapping, exactly as it will be run. */
  query: unknown;
  /** The effective HogQL modifiers. */
  modifiers?: unknown;
  /** Anything else that changes the result: runner name, limit context, week start day. */
  extra?: Record<string, unknown>;
}

/** `tags` only label a query for logs and analytics; they are not part of what it computes. */
function withoutTags(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTags);
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(node)) {
    if (key === 'tags' && typeof node.kind === 'string') continue;
    out[key] = withoutTags(member);
  }
  return out;
}

/**
 * `cache_` + a hash of the canonical JSON of the query (without tags), team, timezone and
 * modifiers: the same question asked twice, with keys in any order, gets the same key.
 */
export function queryCacheKey(input: CacheKeyInput): string {
  const payload = canonical({
    version: CACHE_VERSION,
    team_id: input.teamId,
    timezone: input.timezone,
    query: withoutTags(input.query),
    modifiers: input.modifiers ?? {},
    extra: input.extra ?? {},
  }) as string;
  return `cache_${createHash('sha256').update(payload).digest('hex').slice(0, 40)}`;
}
