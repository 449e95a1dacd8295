import { createHash } from 'node:crypto';
import { findActions, slackActions } from '../../store/meta/action-lookups.js';
import type { ActionRecord, ActionStep } from '../../store/meta/actions.js';
import type { MetaDb } from '../../store/meta/db.js';
import { allEnabledHogFunctions, type HogFunctionRecord } from '../../store/meta/hog-functions.js';
import { countMask, enqueueInvocations, type QueuedInvocation } from '../../store/meta/hog-queue.js';
import { destinationWrites } from '../../store/meta/local-writes.js';
import { findTeam, type TeamRecord } from '../../store/meta/teams.js';
import { teamSettings } from '../organizations/team-settings.js';
import { SLICE_MS, slicer } from '../slices.js';
import { ACTION_JOB_PREFIX, actionWebhookRequest } from './action-webhooks.js';
import { createLineReader } from './line-fields.js';
import {
  actionIdsOf,
  compileFilters,
  type DeliveredEvent,
  decodeLine,
  eventNamesMatched,
  fieldsNeeded,
  lineEvent,
  lineTeam,
  matchesAction,
} from './matching.js';
import { createMetricsTally } from './metrics-tally.js';
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
  /** A write of the `filtered` / `masked` counts failed (they are dropped). */
  onError?: (error: unknown) => void;
}

/** How long `filtered` / `masked` counts wait in memory before they are written together. */
const METRICS_FLUSH_MS = 200;

/**
 * Written events' encoded `events` parts (one per request); called before they are acknowledged
 * as done. `teamIds[i]`, when given, is the project of every row of `eventParts[i]` (a request's
 * rows are one project's): its lines are then not searched for their team.
 */
export type PostWrite = (eventParts: Buffer[], teamIds?: ReadonlyArray<number | undefined>) => Promise<void>;

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

/** A destination as matching reads it. */
type MatchedDestination = Pick<HogFunctionRecord, 'id' | 'teamId' | 'name' | 'filters' | 'masking'>;

/** How long the matcher trusts its copy of destinations, actions and teams without re-reading. */
const CONTEXT_MS = 1000;

interface TeamSetup {
  team: TeamRecord;
  fns: MatchedDestination[];
  slackOn: ActionRecord[];
  actions: Map<number, ActionStep[]>;
  /** Event names some filter can match; null: any. */
  names: Set<string> | null;
  read: (line: string, teamId: number) => DeliveredEvent | undefined;
}

interface ContextState {
  byTeam: Map<number, { fns: MatchedDestination[]; actions: ActionRecord[] }>;
  teams: Map<number, Promise<TeamSetup | undefined>>;
  writes: number;
  at: number;
}

/**
 * What matching reads of the metadata store (enabled destinations, Slack actions, each project's
 * team and referenced actions), kept between calls: read per call, it was a fifth of the
 * matcher's cost when capture came in many small groups. A copy is used while this process has
 * written no destination, action or team since it was read (`destinationWrites`: a destination
 * created through this node's API matches the very next event) and for at most `CONTEXT_MS`
 * (another node's change is seen within a second).
 */
function createMatchContext(meta: MetaDb) {
  let state: ContextState | undefined;
  let loading: Promise<ContextState> | undefined;
  const load = async (): Promise<ContextState> => {
    // Counted before reading: a write that lands during the read makes the copy stale at once.
    const writes = destinationWrites();
    const at = performance.now();
    const [fns, slack] = await Promise.all([allEnabledHogFunctions(meta), slackActions(meta)]);
    const byTeam = new Map<number, { fns: MatchedDestination[]; actions: ActionRecord[] }>();
    const entry = (teamId: number) => {
      const known = byTeam.get(teamId);
      if (known) return known;
      const e = { fns: [] as MatchedDestination[], actions: [] as ActionRecord[] };
      byTeam.set(teamId, e);
      return e;
    };
    for (const f of fns) entry(f.teamId).fns.push(f);
    for (const a of slack) entry(a.teamId).actions.push(a);
    return { byTeam, teams: new Map(), writes, at };
  };
  const setupOf = async (s: ContextState, teamId: number): Promise<TeamSetup | undefined> => {
    const { fns, actions: slackOn } = s.byTeam.get(teamId) ?? { fns: [], actions: [] };
    const team = await findTeam(meta, teamId);
    if (!team) return undefined;
    const actionIds = [...new Set(fns.flatMap((f) => actionIdsOf(f.filters)))];
    const actions = new Map(
      (actionIds.length > 0 ? await findActions(meta, teamId, actionIds) : []).map((a) => [a.id, a.steps]),
    );
    return {
      team,
      fns,
      slackOn,
      actions,
      names: eventNamesMatched(fns, slackOn, actions),
      read: createLineReader(fieldsNeeded(fns, slackOn, actions, team.testAccountFilters)),
    };
  };
  return {
    async current(): Promise<ContextState> {
      // A read already under way may have started before this process's latest write: read
      // again until one started after it (writes come from people, so twice is plenty).
      for (let tries = 0; ; tries++) {
        if (state && state.writes === destinationWrites() && performance.now() - state.at < CONTEXT_MS)
          return state;
        loading ??= load().finally(() => {
          loading = undefined;
        });
        state = await loading;
        if (tries >= 2) return state;
      }
    },
    team(s: ContextState, teamId: number): Promise<TeamSetup | undefined> {
      let setup = s.teams.get(teamId);
      if (!setup) {
        setup = setupOf(s, teamId);
        // A failed read is not kept: the next call reads again.
        setup.catch(() => s.teams.delete(teamId));
        s.teams.set(teamId, setup);
      }
      return setup;
    },
  };
}

/**
 * Matching right after the events are written (docs/destinations.md): each event of a project
 * with enabled destinations is matched against their filters and masking, and an invocation is
 * queued per destination it passes. The capture journal calls this before its checkpoint moves
 * past the events, so an event acknowledged to a client is queued even if the node dies between
 * (at least once: the queue's unique (destination, event) key absorbs a replay).
 *
 * Cheap per event, because it runs beside capture on the same event loop: lines of projects
 * without destinations are skipped on their team id, events no filter names on their name, and
 * the rest are matched on only the fields the filters read (`createLineReader`); an event is
 * decoded whole only once it passes. The loop gives the event loop back every few milliseconds
 * (`slicer`), and the `filtered` / `masked` counts are written together (`createMetricsTally`):
 * `flush()` writes what is counted (the server calls it at stop).
 */
export function createDeliveryMatcher(deps: EnqueueDeps): PostWrite & { flush(): Promise<void> } {
  const tally = createMetricsTally(deps.meta, { flushMs: METRICS_FLUSH_MS, onError: deps.onError });
  const context = createMatchContext(deps.meta);
  const match: PostWrite = async (parts, teamIds) => {
    const state = await context.current();
    if (state.byTeam.size === 0) return;
    const { byTeam } = state;
    // Lines of the projects with destinations, not decoded yet.
    const lines = new Map<number, string[]>();
    for (let p = 0; p < parts.length; p++) {
      const known = teamIds?.[p];
      // A part of a project without destinations is not even split into lines.
      if (known !== undefined && !byTeam.has(known)) continue;
      for (const line of linesOf(parts[p] as Buffer)) {
        const teamId = known ?? lineTeam(line);
        if (!byTeam.has(teamId)) continue;
        const list = lines.get(teamId);
        if (list) list.push(line);
        else lines.set(teamId, [line]);
      }
    }
    if (lines.size === 0) return;
    const now = deps.now();
    const hour = hourOf(now);
    const jobs: QueuedInvocation[] = [];
    for (const [teamId, teamLines] of lines) {
      const setup = await context.team(state, teamId);
      if (!setup) continue;
      const { team, fns, slackOn, actions, names, read } = setup;
      const ctx = { actions, testAccountFilters: team.testAccountFilters, now };
      // Destinations with the same filters (a webhook and a Slack message for every signup) share
      // one matcher, run once per event.
      const { matchers, which } = sharedMatchers(fns, ctx);
      const passed = new Int8Array(matchers.length);
      const slackOk = slackOn.length > 0 && slackWebhook(team) !== undefined;
      // Counted in plain numbers per destination: a map update per event and destination cost
      // more than the matching itself (a filter that passes 1 % counts the other 99 %).
      const filtered = new Array<number>(fns.length).fill(0);
      const masked = new Array<number>(fns.length).fill(0);
      let skipped = 0;
      const pause = slicer(SLICE_MS, teamId);
      for (let n = 0; n < teamLines.length; n++) {
        const line = teamLines[n] as string;
        // The clock read every 32 lines: a line takes about a microsecond, a slice milliseconds.
        if ((n & 31) === 31) {
          const wait = pause();
          if (wait) await wait;
        }
        const name = names && lineEvent(line);
        if (typeof name === 'string' && names?.has(name) === false) {
          skipped++;
          continue;
        }
        const partial = readLine(read, line, teamId);
        let whole = partial ? undefined : decodeLine(line);
        const e = (partial ?? whole) as DeliveredEvent;
        passed.fill(-1);
        for (let k = 0; k < fns.length; k++) {
          const f = fns[k] as MatchedDestination;
          const w = which[k] as number;
          if (passed[w] === -1) passed[w] = (matchers[w] as (e: DeliveredEvent) => boolean)(e) ? 1 : 0;
          if (passed[w] === 0) {
            filtered[k] = (filtered[k] as number) + 1;
            continue;
          }
          whole ??= decodeLine(line);
          const globals = globalsFor(deps, team, f, {
            event: {
              uuid: whole.uuid,
              event: whole.event,
              distinct_id: whole.distinctId,
              properties: whole.properties,
              elements_chain: whole.elementsChain,
              timestamp: whole.timestamp,
            },
            person: whole.personId ? { id: whole.personId, properties: whole.personProperties } : null,
          });
          if (f.masking && !(await passesMask(deps.meta, f.id, f.masking, globals, now))) {
            masked[k] = (masked[k] as number) + 1;
            continue;
          }
          jobs.push({ teamId, functionId: f.id, eventUuid: whole.uuid, globals });
        }
        if (slackOk)
          for (const a of slackOn) {
            if (!matchesAction(a.steps, e, now)) continue;
            whole ??= decodeLine(line);
            jobs.push(actionJob(deps, team, a, whole));
          }
      }
      // Events no filter names count as filtered out by every destination, as matched ones would.
      fns.forEach((f, k) => {
        tally.add({
          functionId: f.id,
          hour,
          kind: 'other',
          name: 'filtered',
          count: (filtered[k] as number) + skipped,
        });
        tally.add({ functionId: f.id, hour, kind: 'other', name: 'masked', count: masked[k] as number });
      });
    }
    if (jobs.length > 0)
      await (deps.queue ? deps.queue(jobs, now) : enqueueInvocations(deps.meta, jobs, now.toISOString()));
  };
  return Object.assign(match, { flush: () => tally.flush() });
}

/** One matcher per distinct `filters` (by their JSON text), and which one each destination uses. */
function sharedMatchers(
  fns: MatchedDestination[],
  ctx: Parameters<typeof compileFilters>[1],
): { matchers: Array<(e: DeliveredEvent) => boolean>; which: number[] } {
  const byText = new Map<string, number>();
  const matchers: Array<(e: DeliveredEvent) => boolean> = [];
  const which = fns.map((f) => {
    const text = JSON.stringify(f.filters);
    let i = byText.get(text);
    if (i === undefined) {
      i = matchers.length;
      byText.set(text, i);
      matchers.push(compileFilters(f.filters, ctx));
    }
    return i;
  });
  return { matchers, which };
}

/** The line's fields the filters read, or undefined to decode it whole (a line of another shape). */
function readLine(
  read: (line: string, teamId: number) => DeliveredEvent | undefined,
  line: string,
  teamId: number,
): DeliveredEvent | undefined {
  try {
    return read(line, teamId);
  } catch {
    return undefined;
  }
}

/** The project's Slack webhook, if it has one. */
function slackWebhook(team: TeamRecord): string | undefined {
  const url = teamSettings(team.settings).slack_incoming_webhook;
  return typeof url === 'string' && url.trim() !== '' ? url.trim() : undefined;
}

/**
 * An action's Slack message for one event (the project has a webhook). The request is rendered
 * now, with the webhook of now, and stored in the job (`globals.request`).
 */
function actionJob(
  deps: EnqueueDeps,
  team: TeamRecord,
  a: ActionRecord,
  e: DeliveredEvent,
): QueuedInvocation {
  const display = teamSettings(team.settings).person_display_name_properties;
  const request = actionWebhookRequest({
    webhookUrl: slackWebhook(team) as string,
    format: a.slackMessageFormat,
    action: { id: a.id, name: a.name },
    event: e,
    team: {
      id: team.id,
      personDisplayNameProperties: Array.isArray(display) ? (display as string[]) : null,
    },
    siteUrl: deps.siteUrl ?? '',
  });
  return {
    teamId: team.id,
    functionId: `${ACTION_JOB_PREFIX}${a.id}`,
    eventUuid: e.uuid,
    globals: { request, action: { id: a.id, name: a.name } },
  };
}

/**
 * PostHog's masking: invocations are counted per rendered `hash` (its SHA-256) for `ttl` seconds
 * from the first; the first goes, and with a `threshold` of n every n-th after it too (the
 * 1st, n+1st, 2n+1st...); the rest are masked. A hash that renders empty or fails masks nothing.
 */
async function passesMask(
  meta: MetaDb,
  functionId: string,
  maskingRaw: Record<string, unknown>,
  globals: Record<string, unknown>,
  now: Date,
): Promise<boolean> {
  const masking = maskingRaw as { ttl: number; hash: string; threshold?: number | null };
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
    functionId,
    key,
    now.toISOString(),
    new Date(now.getTime() + masking.ttl * 1000).toISOString(),
  );
  return masksAllow(n, masking.threshold ?? null);
}

/** Whether the n-th invocation of a masking key in its TTL goes (PostHog's threshold rule). */
export const masksAllow = (n: number, threshold: number | null) =>
  n === 1 || (threshold !== null && threshold > 0 && (n - 1) % threshold === 0);
