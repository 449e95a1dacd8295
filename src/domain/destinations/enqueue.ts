import { createHash } from 'node:crypto';
import { findActions } from '../../store/meta/action-lookups.js';
import type { MetaDb } from '../../store/meta/db.js';
import { addMetrics } from '../../store/meta/hog-function-logs.js';
import { allEnabledHogFunctions, type HogFunctionRecord } from '../../store/meta/hog-functions.js';
import { enqueueInvocations, type QueuedInvocation, takeMask } from '../../store/meta/hog-queue.js';
import { findTeam } from '../../store/meta/teams.js';
import { actionIdsOf, type DeliveredEvent, decodeLine, lineTeam, matchesFilters } from './matching.js';
import { globalsFor } from './service.js';
import { renderValue } from './templating.js';

export interface EnqueueDeps {
  meta: MetaDb;
  now: () => Date;
  siteUrl?: string | undefined;
  /** Told once jobs are queued: this node's workers look at once instead of at their next poll. */
  onQueued?: () => void;
}

/** Written events' encoded `events` parts (one per request); called before they are acknowledged as done. */
export type PostWrite = (eventParts: Buffer[]) => Promise<void>;

export const hourOf = (d: Date) => `${d.toISOString().slice(0, 13)}:00:00.000Z`;

function* linesOf(part: Buffer): Generator<string> {
  let start = 0;
  while (start < part.length) {
    let end = part.indexOf(10, start);
    if (end < 0) end = part.length;
    if (end > start) yield part.toString('utf8', start, end);
    start = end + 1;
  }
}

/**
 * Matching right after the events are written (docs/destinations.md): each event of a project
 * with enabled destinations is matched against their filters and masking, and an invocation is
 * queued per destination it passes. The capture journal calls this before its checkpoint moves
 * past the events, so an event acknowledged to a client is queued even if the node dies between
 * (at least once: the queue's unique (destination, event) key absorbs a replay).
 */
export function createDeliveryMatcher(deps: EnqueueDeps): PostWrite {
  return async (parts) => {
    const functions = await allEnabledHogFunctions(deps.meta);
    if (functions.length === 0) return;
    const byTeam = new Map<number, HogFunctionRecord[]>();
    for (const f of functions) {
      const list = byTeam.get(f.teamId) ?? [];
      list.push(f);
      byTeam.set(f.teamId, list);
    }
    const events: DeliveredEvent[] = [];
    for (const part of parts)
      for (const line of linesOf(part)) if (byTeam.has(lineTeam(line))) events.push(decodeLine(line));
    if (events.length === 0) return;
    const now = deps.now();
    const jobs: QueuedInvocation[] = [];
    const counts = new Map<string, number>();
    const count = (functionId: string, name: string) =>
      counts.set(`${functionId}\n${name}`, (counts.get(`${functionId}\n${name}`) ?? 0) + 1);
    for (const [teamId, fns] of byTeam) {
      const own = events.filter((e) => e.teamId === teamId);
      if (own.length === 0) continue;
      const team = await findTeam(deps.meta, teamId);
      if (!team) continue;
      const actionIds = [...new Set(fns.flatMap((f) => actionIdsOf(f.filters)))];
      const actions = new Map(
        (actionIds.length > 0 ? await findActions(deps.meta, teamId, actionIds) : []).map((a) => [
          a.id,
          a.steps,
        ]),
      );
      const ctx = { actions, testAccountFilters: team.testAccountFilters, now };
      for (const f of fns) {
        for (const e of own) {
          if (!matchesFilters(f.filters, e, ctx)) {
            count(f.id, 'filtered');
            continue;
          }
          const globals = globalsFor(deps, team, f, {
            event: {
              uuid: e.uuid,
              event: e.event,
              distinct_id: e.distinctId,
              properties: e.properties,
              elements_chain: e.elementsChain,
              timestamp: e.timestamp,
            },
            person: e.personId ? { id: e.personId, properties: e.personProperties } : null,
          });
          if (f.masking && !(await passesMask(deps.meta, f, globals, now))) {
            count(f.id, 'masked');
            continue;
          }
          jobs.push({ teamId, functionId: f.id, eventUuid: e.uuid, globals });
        }
      }
    }
    if (jobs.length > 0) await enqueueInvocations(deps.meta, jobs, now.toISOString());
    const hour = hourOf(now);
    await addMetrics(
      deps.meta,
      [...counts].map(([key, n]) => {
        const [functionId, name] = key.split('\n') as [string, string];
        return { functionId, hour, kind: 'other', name, count: n };
      }),
    );
    if (jobs.length > 0) deps.onQueued?.();
  };
}

/** Masking: one invocation per rendered `hash` per `ttl` seconds (the key is its SHA-256). */
async function passesMask(
  meta: MetaDb,
  f: HogFunctionRecord,
  globals: Record<string, unknown>,
  now: Date,
): Promise<boolean> {
  const masking = f.masking as { ttl: number; hash: string };
  let rendered: unknown;
  try {
    rendered = await renderValue(masking.hash, 'hog', globals);
  } catch {
    return true;
  }
  const text = typeof rendered === 'string' ? rendered : JSON.stringify(rendered ?? null);
  const key = createHash('sha256').update(text).digest('hex');
  return takeMask(
    meta,
    f.id,
    key,
    now.toISOString(),
    new Date(now.getTime() + masking.ttl * 1000).toISOString(),
  );
}
