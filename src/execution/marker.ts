import { createHash } from 'node:crypto';

/**
 * The tag the engine query carries: `burrow_<team>_<client query id>`, so a cancel can find it from
 * any node without asking the node that started it. A client id outside `[A-Za-z0-9-]` (at most
 * 64 characters) is replaced by a hash of it, since the tag must be safe to inline in SQL and `_`
 * separates its parts.
 */
export function engineMarker(teamId: number, queryId: string): string {
  const safe = /^[A-Za-z0-9-]{1,64}$/.test(queryId)
    ? queryId
    : createHash('sha256').update(queryId).digest('hex').slice(0, 32);
  return `burrow_${teamId}_${safe}`;
}
