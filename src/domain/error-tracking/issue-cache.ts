import type { MetaDb } from '../../store/meta/db.js';

/** How long a fingerprint's issue and status are trusted before being read again. */
export const ISSUE_CACHE_TTL_MS = 10_000;
const MAX_ENTRIES = 50_000;

interface Entry {
  id: string;
  status: string;
  at: number;
}

/**
 * Fingerprint -> issue and status, so a repeated exception costs no metadata read. Changes made on
 * this node (PATCH, merge, split) forget the project's entries at once; another node's are seen
 * within the TTL.
 */
export class IssueCache {
  private readonly entries = new Map<string, Entry>();

  get(teamId: number, fingerprint: string, now: number): Entry | undefined {
    const key = `${teamId}:${fingerprint}`;
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (now - e.at > ISSUE_CACHE_TTL_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  set(teamId: number, fingerprint: string, id: string, status: string, now: number): void {
    if (this.entries.size >= MAX_ENTRIES) {
      // Oldest inserted first: Map keeps insertion order.
      const first = this.entries.keys().next().value;
      if (first !== undefined) this.entries.delete(first);
    }
    this.entries.set(`${teamId}:${fingerprint}`, { id, status, at: now });
  }

  forgetTeam(teamId: number): void {
    const prefix = `${teamId}:`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }
}

const caches = new WeakMap<MetaDb, IssueCache>();

/** One cache per metadata store, shared by ingestion and the issue routes of the node. */
export function issueCacheFor(meta: MetaDb): IssueCache {
  let cache = caches.get(meta);
  if (!cache) {
    cache = new IssueCache();
    caches.set(meta, cache);
  }
  return cache;
}
