import { concatInSlices } from '../../capture/concat.js';
import type { LogRow } from '../../store/events/rows.js';
import type { EventsStore } from '../../store/events/store.js';
import type { MetaDb } from '../../store/meta/db.js';
import { isSerializationFailure, isUniqueViolation } from '../../store/meta/errors.js';
import { PersonVersionConflict } from '../../store/meta/persons.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import type { DefinitionsCollector } from '../definitions/collector.js';
import { createExceptionStep, type ExceptionStep } from '../error-tracking/ingest-step.js';
import type { GeoStep } from '../geoip/enrich.js';
import { type CostStep, createCostStep, projectPrices } from '../llm-analytics/cost.js';
import { createPriceBook } from '../llm-analytics/model-prices.js';
import { joinInSlices } from '../slices.js';
import { enrichFromCache } from './cached-persons.js';
import { createGroupCommit, type GroupCommitOptions, overloaded } from './group-commit.js';
import { TABLES } from './journal-entry.js';
import { INSERT_TURN } from './journal-sink.js';
import { PersonCache } from './person-cache.js';
import { createPersonGroup, GroupRolledBack } from './person-group.js';
import { preparePersonMode } from './personless.js';
import { emptyChanges, type PersonEnrichment } from './persons.js';
import { RecentUuids } from './recent-uuids.js';
import { isSnapshot, replayRows } from './replay.js';
import { type CaptureEvent, chTime, eventLine, rowsIn, type WriteSet, writeSet } from './rows.js';
import type { IngestSink } from './sink.js';

const NO_REPLAY = { summaries: [], snapshots: [] };

export interface IngestDeps {
  meta: MetaDb;
  events: EventsStore;
  now: () => Date;
  /** Event and property definitions, remembered per written request and flushed in batches. */
  definitions?: DefinitionsCollector | undefined;
  /** Where the rows go (default: straight into the engine, `directSink`). */
  sink?: IngestSink | undefined;
  /**
   * Told once a project's events are acknowledged (a query that starts later on this node reads
   * them): cached results calculated before are stale (event watermarks, docs/query-api.md).
   */
  onAcknowledged?: ((teamId: number) => void) | undefined;
  /** Told of every set of rows accepted (capture's load, which realtime delivery yields to). */
  onRows?: ((rows: number) => void) | undefined;
  /** LLM cost at ingestion (default: the model price table in the repository). */
  cost?: CostStep | undefined;
  /** Error tracking at ingestion (default: grouping into issues, no symbolication). */
  exceptions?: ExceptionStep | undefined;
  /** `$geoip_*` from each event's `$ip` (none: no GeoIP). */
  geoip?: GeoStep | undefined;
  /** With `CAPTURE_JOURNAL=off`: the post-write hook (destinations' matching) run before requests are answered. */
  afterInsert?: ((eventParts: Buffer[]) => Promise<void>) | undefined;
  /**
   * Person transactions shared by concurrent requests that may run at once (person-group.ts):
   * 1 (the default) for SQLite's one connection; a PostgreSQL pool can overlap several.
   */
  personConcurrency?: number | undefined;
  /** How long a shared person transaction waits for more requests under load (person-group.ts). */
  personGroupDelayMs?: number | undefined;
}

/** Events one shared person transaction takes at most: about 16 requests of 100. */
const PERSON_GROUP_EVENTS = 1600;

/**
 * One insert per table for everything gathered; events go as the lines requests encoded. Tests and
 * benches write their rows through it too (test/helpers/events-insert.ts), so that a test row is
 * written as a captured one is.
 */
export function createWriter(events: EventsStore, afterInsert?: (eventParts: Buffer[]) => Promise<void>) {
  return async (sets: WriteSet[]) => {
    await writeSets(events, sets);
    // Before the requests are answered: what the hook does (destinations' queue) is as durable as the rows.
    if (afterInsert) await afterInsert(sets.map((s) => s.events));
  };
}

async function writeSets(events: EventsStore, sets: WriteSet[]) {
  for (const [part, table] of TABLES) {
    if (part === 'events') {
      // In slices: a group commit's rows reach tens of MB, one copy held the event loop as long.
      const body = await concatInSlices(
        sets.map((s) => s.events),
        undefined,
        INSERT_TURN,
      );
      if (body.length > 0) await events.insertEncoded(table, body);
      continue;
    }
    const rows = sets.flatMap((s) => (s[part] as object[] | undefined) ?? []);
    if (rows.length > 0) await events.insert(table, rows);
  }
}

/** Acknowledge-after-insert (`CAPTURE_JOURNAL=off`): requests' rows go to the engine by a group commit. */
export function directSink(
  events: EventsStore,
  options: GroupCommitOptions,
  afterInsert?: (eventParts: Buffer[]) => Promise<void>,
): IngestSink {
  const commit = createGroupCommit(createWriter(events, afterInsert), rowsIn, options);
  return { add: (set) => commit.add(set), pendingRows: commit.pendingRows, close: commit.close };
}

function isConflict(error: unknown): boolean {
  if (error instanceof PersonVersionConflict) return true;
  return isUniqueViolation(error) || isSerializationFailure(error);
}

/**
 * Capture's write path: person processing in one metadata transaction per request (events of a
 * request in order), then the rows go to the sink; the promise settles once they are durable
 * (in the engine, or in the node's journal: sink.ts). Two requests creating the same new distinct id at once (PostgreSQL) conflict; the
 * loser reprocesses its request.
 */
export function createIngestPipeline(deps: IngestDeps, options: GroupCommitOptions) {
  const sink: IngestSink = deps.sink ?? directSink(deps.events, options, deps.afterInsert);
  const onRows = deps.onRows;
  const commit: IngestSink = onRows
    ? {
        add: (set, rows, teamId) => {
          onRows(rows);
          return sink.add(set, rows, teamId);
        },
        pendingRows: () => sink.pendingRows(),
        close: () => sink.close(),
      }
    : sink;
  const cache = new PersonCache();
  /** Requests in `ingest` now: a person transaction waits for more only while others are. */
  let inFlight = 0;
  const persons = createPersonGroup(deps.meta, cache, {
    maxEvents: PERSON_GROUP_EVENTS,
    concurrency: deps.personConcurrency ?? 1,
    delayMs: deps.personGroupDelayMs ?? 0,
    inFlight: () => inFlight,
  });
  const recent = new RecentUuids();
  const applyCost = deps.cost ?? createCostStep({ prices: createPriceBook() });
  const applyExceptions = deps.exceptions ?? createExceptionStep({ meta: deps.meta, now: deps.now });

  async function process(team: TeamRecord, events: CaptureEvent[]): Promise<WriteSet> {
    let alone = false;
    for (let attempt = 1; ; attempt++) {
      const changes = emptyChanges();
      const now = chTime(deps.now().toISOString());
      try {
        // Recordings go to their own tables, not to events, and need no person work.
        const recordings = events.filter(isSnapshot);
        const plain = events.filter((e) => !isSnapshot(e));
        const cached = enrichFromCache(cache, team.id, plain);
        // Encoded in slices: a request of thousands of events must not hold the event loop.
        if (cached) {
          const rows = await joinInSlices(
            plain,
            (e, i) => eventLine(team.id, e, cached[i] as PersonEnrichment, now),
            team.id,
          );
          return {
            ...writeSet(rows, plain.length, changes, await replayRows(team.id, recordings)),
            captured: plain,
          };
        }
        const enriched = alone
          ? await persons.alone(team.id, changes, plain)
          : await persons.process(team.id, changes, plain);
        // Encoded after the commit: the transaction (SQLite's one connection, or PostgreSQL's row
        // locks) is held for the person work alone. The columns are copies, taken in order.
        const rows = await joinInSlices(
          plain,
          (e, i) => eventLine(team.id, e, enriched[i] as PersonEnrichment, now),
          team.id,
        );
        return {
          ...writeSet(rows, plain.length, changes, await replayRows(team.id, recordings)),
          captured: plain,
        };
      } catch (error) {
        // The transaction rolled back: nothing this request read or wrote may stay cached.
        cache.forget(team.id, changes.seen);
        if (error instanceof GroupRolledBack) {
          // Another request's failure, or this one's: find out alone, without using up an attempt.
          attempt--;
          alone = true;
          continue;
        }
        if (attempt >= 3 || !isConflict(error)) throw error;
      }
    }
  }

  async function ingestEvents(team: TeamRecord, events: CaptureEvent[]): Promise<void> {
    // `preparePersonMode` also applies `$process_person_profile` to the properties (personless.ts).
    let fresh = events.filter((e) => !recent.has(team.id, e.uuid) && preparePersonMode(e));
    if (fresh.length === 0) return;
    const own = projectPrices(team.settings);
    for (const e of fresh) if (e.event.startsWith('$ai_')) applyCost(e, own);
    // Only requests carrying exceptions pay for error tracking (an issue lookup, cached).
    const exceptions = fresh.filter((e) => e.event === '$exception');
    if (exceptions.length > 0) {
      const drop = await applyExceptions(team.id, exceptions);
      // Exceptions of suppressed issues are not stored, as PostHog drops them.
      if (drop.size > 0) fresh = fresh.filter((e) => !drop.has(e.uuid));
      if (fresh.length === 0) return;
    }
    // Before the person work: the person's $set / $set_once carry the location too.
    if (deps.geoip) await deps.geoip.enrich(fresh);
    // Refuse before doing person work that could not be written anyway.
    if (commit.pendingRows() >= options.maxPendingRows) throw overloaded();
    const set = await process(team, fresh);
    await commit.add(set, rowsIn(set), team.id);
    // Recordings alone change no query result: a replay stream must not keep insights recalculating.
    if (deps.onAcknowledged && fresh.some((e) => !isSnapshot(e))) deps.onAcknowledged(team.id);
    deps.definitions?.observe(
      team.id,
      fresh.filter((e) => !isSnapshot(e)),
      (type) => cache.groupType(team.id, type),
    );
    recent.remember(
      team.id,
      fresh.map((e) => e.uuid),
    );
  }

  return {
    async ingest(team: TeamRecord, events: CaptureEvent[]): Promise<void> {
      inFlight++;
      try {
        await ingestEvents(team, events);
      } finally {
        inFlight--;
        persons.poke();
      }
    },
    /**
     * OpenTelemetry log records: no person work, the same sink (journal, durability, 503 when too
     * much waits) as events; settles once they are durable.
     */
    async ingestLogs(team: TeamRecord, logs: LogRow[]): Promise<void> {
      if (logs.length === 0) return;
      if (commit.pendingRows() >= options.maxPendingRows) throw overloaded();
      const set: WriteSet = { ...writeSet(Buffer.alloc(0), 0, emptyChanges(), NO_REPLAY), logs };
      await commit.add(set, rowsIn(set), team.id);
    },
    /** Drops cached persons of deleted distinct ids: their next event makes a new person. */
    forget(teamId: number, distinctIds: Iterable<string>): void {
      cache.forget(teamId, distinctIds);
    },
    pendingRows: () => commit.pendingRows(),
    close: () => commit.close(),
  };
}

export type IngestPipeline = ReturnType<typeof createIngestPipeline>;
