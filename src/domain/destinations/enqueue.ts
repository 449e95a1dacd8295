import { createHash } from 'node:crypto';
import { findActions, slackActions } from '../../store/meta/action-lookups.js';
import type { ActionRecord } from '../../store/meta/actions.js';
import type { MetaDb } from '../../store/meta/db.js';
import { addMetrics } from '../../store/meta/hog-function-logs.js';
import { allEnabledHogFunctions, type HogFunctionRecord } from '../../store/meta/hog-functions.js';
import { countMask, enqueueInvocations, type QueuedInvocation } from '../../store/meta/hog-queue.js';
import { findTeam, type TeamRecord } from '../../store/meta/teams.js';
import { teamSettings } from '../organizations/team-settings.js';
import { ACTION_JOB_PREFIX, actionWebhookRequest } from './action-webhooks.js';
import {
  actionIdsOf,
  type DeliveredEvent,
  decodeLine,
  eventNamesMatched,
  lineEvent,
  lineTeam,
  matchesAction,
  matchesFilters,
} from './matching.js';
import { globalsFor } from './service.js';
import { renderValue } from './templating.js';

export interface EnqueueDeps {
  meta: MetaDb;
  now: () => Date;
  siteUrl?: string | undefined;
  /**
   * Writes matched invocations (default: free jobs in the queue). A node running delivery workers
   * passes its worker's `enqueue`, which keeps what it has room for and starts it at once.
   */
  queue?: (jobs: QueuedInvocation[], now: Date) => Promise<void>;
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
    const [functions, slack] = await Promise.all([
      allEnabledHogFunctions(deps.meta),
      slackActions(deps.meta),
    ]);
    if (functions.length === 0 && slack.length === 0) return;
    const byTeam = new Map<number, { fns: HogFunctionRecord[]; actions: ActionRecord[] }>();
    const entry = (teamId: number) => {
      const known = byTeam.get(teamId);
      if (known) return known;
      const e = { fns: [] as HogFunctionRecord[], actions: [] as ActionRecord[] };
      byTeam.set(teamId, e);
      return e;
    };
    for (const f of functions) entry(f.teamId).fns.push(f);
    for (const a of slack) entry(a.teamId).actions.push(a);
    // Lines of the projects with destinations, not decoded yet: most events of a project are not
    // ones its destinations name, and decoding every line was the matcher's largest cost.
    const lines = new Map<number, string[]>();
    for (const part of parts)
      for (const line of linesOf(part)) {
        const teamId = lineTeam(line);
        if (!byTeam.has(teamId)) continue;
        const list = lines.get(teamId);
        if (list) list.push(line);
        else lines.set(teamId, [line]);
      }
    if (lines.size === 0) return;
    const now = deps.now();
    const jobs: QueuedInvocation[] = [];
    // Counted in plain numbers per destination: one map update per event and destination cost
    // more than the matching itself (a filter that passes 1 % counts the other 99 %).
    const counts: Array<{ functionId: string; filtered: number; masked: number }> = [];
    for (const [teamId, teamLines] of lines) {
      const { fns, actions: slackOn } = byTeam.get(teamId)!;
      const team = await findTeam(deps.meta, teamId);
      if (!team) continue;
      const actionIds = [...new Set(fns.flatMap((f) => actionIdsOf(f.filters)))];
      const actions = new Map(
        (actionIds.length > 0 ? await findActions(deps.meta, teamId, actionIds) : []).map((a) => [
          a.id,
          a.steps,
        ]),
      );
      const names = eventNamesMatched(fns, slackOn, actions);
      const own: DeliveredEvent[] = [];
      let skipped = 0;
      for (const line of teamLines) {
        const name = names && lineEvent(line);
        if (typeof name === 'string' && names?.has(name) === false) skipped++;
        else own.push(decodeLine(line));
      }
      // Events no filter names count as filtered out by every destination, as matched ones would.
      if (skipped > 0) for (const f of fns) counts.push({ functionId: f.id, filtered: skipped, masked: 0 });
      if (own.length === 0) continue;
      if (slackOn.length > 0) jobs.push(...actionJobs(deps, team, slackOn, own, now));
      const ctx = { actions, testAccountFilters: team.testAccountFilters, now };
      for (const f of fns) {
        const counted = { functionId: f.id, filtered: 0, masked: 0 };
        counts.push(counted);
        for (const e of own) {
          if (!matchesFilters(f.filters, e, ctx)) {
            counted.filtered++;
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
            counted.masked++;
            continue;
          }
          jobs.push({ teamId, functionId: f.id, eventUuid: e.uuid, globals });
        }
      }
    }
    if (jobs.length > 0)
      await (deps.queue ? deps.queue(jobs, now) : enqueueInvocations(deps.meta, jobs, now.toISOString()));
    const hour = hourOf(now);
    await addMetrics(
      deps.meta,
      counts.flatMap(({ functionId, filtered, masked }) => [
        ...(filtered > 0 ? [{ functionId, hour, kind: 'other', name: 'filtered', count: filtered }] : []),
        ...(masked > 0 ? [{ functionId, hour, kind: 'other', name: 'masked', count: masked }] : []),
      ]),
    );
  };
}

/**
 * Actions' Slack messages: one job per (action, event) when the project has a webhook. The
 * request is rendered now, with the webhook of now, and stored in the job (`globals.request`).
 */
function actionJobs(
  deps: EnqueueDeps,
  team: TeamRecord,
  actions: ActionRecord[],
  events: DeliveredEvent[],
  now: Date,
): QueuedInvocation[] {
  const settings = teamSettings(team.settings);
  const webhookUrl = settings.slack_incoming_webhook;
  if (typeof webhookUrl !== 'string' || webhookUrl.trim() === '') return [];
  const display = settings.person_display_name_properties;
  const jobs: QueuedInvocation[] = [];
  for (const a of actions)
    for (const e of events) {
      if (!matchesAction(a.steps, e, now)) continue;
      const request = actionWebhookRequest({
        webhookUrl: webhookUrl.trim(),
        format: a.slackMessageFormat,
        action: { id: a.id, name: a.name },
        event: e,
        team: {
          id: team.id,
          personDisplayNameProperties: Array.isArray(display) ? (display as string[]) : null,
        },
        siteUrl: deps.siteUrl ?? '',
      });
      jobs.push({
        teamId: team.id,
        functionId: `${ACTION_JOB_PREFIX}${a.id}`,
        eventUuid: e.uuid,
        globals: { request, action: { id: a.id, name: a.name } },
      });
    }
  return jobs;
}

/**
 * PostHog's masking: invocations are counted per rendered `hash` (its SHA-256) for `ttl` seconds
 * from the first; the first goes, and with a `threshold` of n every n-th after it too (the
 * 1st, n+1st, 2n+1st...); the rest are masked. A hash that renders empty or fails masks nothing.
 */
async function passesMask(
  meta: MetaDb,
  f: HogFunctionRecord,
  globals: Record<string, unknown>,
  now: Date,
): Promise<boolean> {
  const masking = f.masking as { ttl: number; hash: string; threshold?: number | null };
  let rendered: unknown;
  try {
    rendered = await renderValue(masking.hash, 'hog', globals);
  } catch {
    return true;
  }
  if (rendered === null || rendered === undefined || rendered === '' || rendered === false) return true;
  const text = typeof rendered === 'string' ? rendered : JSON.stringify(rendered);
  const key = createHash('sha256').update(text).digest('hex');
  const n = await countMask(
    meta,
    f.id,
    key,
    now.toISOString(),
    new Date(now.getTime() + masking.ttl * 1000).toISOString(),
  );
  return masksAllow(n, masking.threshold ?? null);
}

/** Whether the n-th invocation of a masking key in its TTL goes (PostHog's threshold rule). */
export const masksAllow = (n: number, threshold: number | null) =>
  n === 1 || (threshold !== null && threshold > 0 && (n - 1) % threshold === 0);
