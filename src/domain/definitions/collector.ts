import type { PropertyValueType } from '../../hogql/property-types.js';
import type { MetaDb } from '../../store/meta/db.js';
import {
  type EventPropertySeen,
  type EventSeen,
  insertEventProperties,
  type PropertySeen,
  upsertEventDefinitions,
  upsertPropertyDefinitions,
} from '../../store/meta/definitions.js';
import { detectPropertyType, MAX_NAME_LENGTH, PROPERTY_PARENT, SKIP_PROPERTIES } from './detect.js';
import { forgetTypedContext } from './typed-context.js';

export interface DefinitionEvent {
  event: string;
  properties: Record<string, unknown>;
}

/** What one team has already written (or queued), so a repeat costs a Set lookup and nothing else. */
interface TeamSeen {
  /** Event name → property names recorded for it; the hour of its last `last_seen_at`. */
  events: Map<string, { props: Set<string>; hour: number }>;
  /** `${type}:${groupIndex}:${name}` of property definitions with a type (or none possible). */
  typed: Set<string>;
  /** Same key, definitions written without a type yet (a later typed value may still set it). */
  untyped: Set<string>;
}

const HOUR_MS = 3_600_000;
/** Above this many remembered keys a team's memory is dropped (rewrites are idempotent). */
const MAX_REMEMBERED = 200_000;

/**
 * Event and property definitions gathered at ingestion without a metadata write per event:
 * `observe` (in the capture path) only remembers what is new in memory; `flush` (on a timer, and
 * at shutdown) writes the new names in a few multi-row upserts. An event name's `last_seen_at`
 * is written at most once an hour per node, as PostHog floors it to the hour.
 */
export function createDefinitionsCollector(
  db: MetaDb,
  options: { now?: () => Date; flushMs?: number; onError?: (err: unknown) => void } = {},
) {
  const now = options.now ?? (() => new Date());
  const teams = new Map<number, TeamSeen>();
  let events = new Map<string, EventSeen>();
  let properties = new Map<string, PropertySeen>();
  let eventProperties: EventPropertySeen[] = [];
  let remembered = 0;

  const teamOf = (teamId: number): TeamSeen => {
    let t = teams.get(teamId);
    if (!t) {
      t = { events: new Map(), typed: new Set(), untyped: new Set() };
      teams.set(teamId, t);
    }
    return t;
  };

  function property(
    t: TeamSeen,
    teamId: number,
    parent: number,
    groupIndex: number,
    name: string,
    value: unknown,
    nowMs: number,
  ) {
    if (name.length > MAX_NAME_LENGTH) return;
    const key = `${parent}:${groupIndex}:${name}`;
    if (t.typed.has(key)) return;
    const type: PropertyValueType | null = detectPropertyType(name, value, nowMs);
    if (type === null && t.untyped.has(key)) return;
    (type === null ? t.untyped : t.typed).add(key);
    remembered++;
    const pending = properties.get(`${teamId}:${key}`);
    if (pending && pending.propertyType !== null) return;
    properties.set(`${teamId}:${key}`, {
      teamId,
      name,
      type: parent,
      groupTypeIndex: groupIndex,
      propertyType: type,
    });
  }

  function personProperties(t: TeamSeen, teamId: number, set: unknown, nowMs: number) {
    if (!set || typeof set !== 'object' || Array.isArray(set)) return;
    for (const name in set as Record<string, unknown>)
      property(t, teamId, PROPERTY_PARENT.person, -1, name, (set as Record<string, unknown>)[name], nowMs);
  }

  return {
    /** Remembers the definitions `batch` implies; cheap when nothing in it is new. */
    observe(
      teamId: number,
      batch: readonly DefinitionEvent[],
      groupIndex: (type: string) => number | undefined = () => undefined,
    ): void {
      const t = teamOf(teamId);
      const nowMs = now().getTime();
      const hour = Math.floor(nowMs / HOUR_MS);
      for (const e of batch) {
        const name = e.event;
        if (name.length > MAX_NAME_LENGTH || name === '$$plugin_metrics') continue;
        let seen = t.events.get(name);
        if (!seen || seen.hour !== hour) {
          if (!seen) {
            seen = { props: new Set(), hour };
            t.events.set(name, seen);
            remembered++;
          }
          seen.hour = hour;
          events.set(`${teamId}:${name}`, {
            teamId,
            name,
            lastSeenAt: new Date(hour * HOUR_MS).toISOString(),
          });
        }
        const p = e.properties;
        if (name === '$groupidentify') {
          const type = p.$group_type;
          const index = typeof type === 'string' ? groupIndex(type) : undefined;
          const set = p.$group_set;
          if (index !== undefined && set && typeof set === 'object' && !Array.isArray(set)) {
            for (const key in set as Record<string, unknown>)
              property(
                t,
                teamId,
                PROPERTY_PARENT.group,
                index,
                key,
                (set as Record<string, unknown>)[key],
                nowMs,
              );
          }
          continue;
        }
        const props = seen.props;
        for (const key in p) {
          if (props.has(key)) continue;
          if (SKIP_PROPERTIES.has(key) || key.length > MAX_NAME_LENGTH) continue;
          props.add(key);
          remembered++;
          if (!key.startsWith('$feature/')) eventProperties.push({ teamId, event: name, property: key });
          property(t, teamId, PROPERTY_PARENT.event, -1, key, p[key], nowMs);
        }
        if (p.$set !== undefined) personProperties(t, teamId, p.$set, nowMs);
        if (p.$set_once !== undefined) personProperties(t, teamId, p.$set_once, nowMs);
      }
      if (remembered > MAX_REMEMBERED) {
        teams.clear();
        remembered = 0;
      }
    },
    pending(): number {
      return events.size + properties.size + eventProperties.length;
    },
    /** Writes everything new since the last flush. On failure it is forgotten, to be seen again. */
    async flush(): Promise<void> {
      if (events.size === 0 && properties.size === 0 && eventProperties.length === 0) return;
      const e = [...events.values()];
      const p = [...properties.values()];
      const ep = eventProperties;
      events = new Map();
      properties = new Map();
      eventProperties = [];
      try {
        await upsertEventDefinitions(db, e, now().toISOString());
        await upsertPropertyDefinitions(db, p);
        await insertEventProperties(db, ep);
        // New types change how this node compiles queries now, not in a cache lifetime.
        for (const teamId of new Set(p.map((r) => r.teamId))) forgetTypedContext({ meta: db }, teamId);
      } catch (err) {
        for (const r of [...e, ...p, ...ep]) teams.delete(r.teamId);
        throw err;
      }
    },
  };
}

export type DefinitionsCollector = ReturnType<typeof createDefinitionsCollector>;

/** Flushes every `ms` until stopped; the returned function stops and flushes one last time. */
export function flushPeriodically(
  collector: DefinitionsCollector,
  ms: number,
  onError: (err: unknown) => void,
): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => collector.flush()).catch(onError);
  }, ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
    await collector.flush().catch(onError);
  };
}
