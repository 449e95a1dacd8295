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
import { createLineReader, NO_PROPERTIES } from './line-fields.js';
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
 * rows are one project's): its lines are then not searched for their team. `captured[i]`, when
 * given with it, is capture's objects for those lines (a replay has only the lines).
 */
export type PostWrite = (
  eventParts: Buffer[],
  teamIds?: ReadonlyArray<number | undefined>,
  captured?: ReadonlyArray<ReadonlyArray<CapturedEvent> | undefined>,
) => Promise<void>;

/**
 * Capture's own event, one per line of its part and in the same order (`eventLine` of each):
 * filters read its name and properties without reading the line. Only what capture decoded from
 * the request and enriched before writing the line; nothing changes it afterwards.
 */
export interface CapturedEvent {
  event: string;
  properties: Record<string, unknown>;
}

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
  /** Some filter reads person properties: capture's objects do not carry them, lines do. */
  personNeeded: boolean;
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
    const needs = fieldsNeeded(fns, slackOn, actions, team.testAccountFilters);
    return {
      team,
      fns,
      slackOn,
      actions,
      names: eventNamesMatched(fns, slackOn, actions),
      read: createLineReader(needs),
      personNeeded: needs.personProperties.size > 0,
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
  const match: PostWrite = async (parts, teamIds, captured) => {
    const state = await context.current();
    if (state.byTeam.size === 0) return;
    const { byTeam } = state;
    // Per project with destinations: lines not decoded yet, and parts whose events capture handed
    // over as objects (read without their lines unless a filter needs person properties).
    const work = new Map<number, TeamWork>();
    const workOf = (teamId: number) => {
      const known = work.get(teamId);
      if (known) return known;
      const w: TeamWork = { lines: [], objects: [] };
      work.set(teamId, w);
      return w;
    };
    for (let p = 0; p < parts.length; p++) {
      const known = teamIds?.[p];
      // A part of a project without destinations is not even split into lines.
      if (known !== undefined && !byTeam.has(known)) continue;
      const part = parts[p] as Buffer;
      const events = captured?.[p];
      if (known !== undefined && events) {
        workOf(known).objects.push({ part, events });
        continue;
      }
      for (const line of linesOf(part)) {
        const teamId = known ?? lineTeam(line);
        if (!byTeam.has(teamId)) continue;
        workOf(teamId).lines.push(line);
      }
    }
    if (work.size === 0) return;
    const now = deps.now();
    const hour = hourOf(now);
    const jobs: QueuedInvocation[] = [];
    for (const [teamId, teamWork] of work) {
      const setup = await context.team(state, teamId);
      if (!setup) continue;
      const { team, fns, slackOn, actions, names, read } = setup;
      // Capture's objects carry no person properties as they were at the event: read the lines.
      if (setup.personNeeded && teamWork.objects.length > 0) {
        for (const o of teamWork.objects) for (const line of linesOf(o.part)) teamWork.lines.push(line);
        teamWork.objects = [];
      }
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
      // Destinations (by index) and Slack actions the current event passed.
      const hits: number[] = [];
      const slackHits: ActionRecord[] = [];
      let skipped = 0;
      /** The destinations and Slack actions `e` passes, into `hits` / `slackHits`; counts the rest. */
      const filter = (e: DeliveredEvent) => {
        hits.length = 0;
        slackHits.length = 0;
        passed.fill(-1);
        for (let k = 0; k < fns.length; k++) {
          const w = which[k] as number;
          if (passed[w] === -1) passed[w] = (matchers[w] as (e: DeliveredEvent) => boolean)(e) ? 1 : 0;
          if (passed[w] === 0) filtered[k] = (filtered[k] as number) + 1;
          else hits.push(k);
        }
        if (slackOk) for (const a of slackOn) if (matchesAction(a.steps, e, now)) slackHits.push(a);
        return hits.length > 0 || slackHits.length > 0;
      };
      /** Queues the passed destinations' invocations for the event, decoded whole. */
      const emit = async (whole: DeliveredEvent) => {
        for (const k of hits) {
          const f = fns[k] as MatchedDestination;
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
        for (const a of slackHits) jobs.push(actionJob(deps, team, a, whole));
      };
      const pause = slicer(SLICE_MS, teamId);
      let n = 0;
      for (const line of teamWork.lines) {
        // The clock read every 32 events: an event takes about a microsecond, a slice milliseconds.
        if ((n++ & 31) === 31) {
          const wait = pause();
          if (wait) await wait;
        }
        const name = names && lineEvent(line);
        if (typeof name === 'string' && names?.has(name) === false) {
          skipped++;
          continue;
        }
        const partial = readLine(read, line, teamId);
        const whole = partial ? undefined : decodeLine(line);
        if (filter((partial ?? whole) as DeliveredEvent)) await emit(whole ?? decodeLine(line));
      }
      for (const { part, events } of teamWork.objects) {
        const lines = lineCursor(part);
        for (let i = 0; i < events.length; i++) {
          if ((n++ & 31) === 31) {
            const wait = pause();
            if (wait) await wait;
          }
          const ev = events[i] as CapturedEvent;
          if (names?.has(ev.event) === false) {
            skipped++;
            continue;
          }
          if (!filter(capturedView(ev, teamId))) continue;
          // The event's own line, decoded, for what renders it (uuid, times, person).
          const line = lines.at(i);
          if (line !== undefined) await emit(decodeLine(line));
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

interface TeamWork {
  lines: string[];
  objects: Array<{ part: Buffer; events: ReadonlyArray<CapturedEvent> }>;
}

/** What the filters read of a captured event: its name, properties and elements. */
function capturedView(ev: CapturedEvent, teamId: number): DeliveredEvent {
  const chain = ev.properties.$elements_chain;
  return {
    uuid: '',
    event: ev.event,
    teamId,
    distinctId: '',
    properties: ev.properties,
    timestamp: '',
    elementsChain: typeof chain === 'string' ? chain : '',
    personId: '',
    // Empty: only projects whose filters read no person properties are matched on these views.
    personProperties: NO_PROPERTIES,
  };
}

/**
 * The part's lines by index, read forward: `at(i)` for increasing `i` walks the buffer once.
 * Undefined past the last line.
 */
function lineCursor(part: Buffer): { at(i: number): string | undefined } {
  let index = 0;
  let start = 0;
  return {
    at(i) {
      while (index < i && start < part.length) {
        const end = part.indexOf(10, start);
        start = end < 0 ? part.length : end + 1;
        index++;
      }
      if (index !== i || start >= part.length) return undefined;
      let end = part.indexOf(10, start);
      if (end < 0) end = part.length;
      return part.toString('utf8', start, end);
    },
  };
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
