import type { MetaDb } from '../../store/meta/db.js';
import { type FeatureFlagRecord, liveFeatureFlags } from '../../store/meta/feature-flags.js';
import { groupTypeMapping } from '../../store/meta/flag-lookups.js';
import type { Bus } from '../../store/shared/bus.js';
import { cohortIdsOf } from './cohorts.js';
import { CompiledFlagSet } from './compiled-set.js';
import type { FlagDefinition } from './types.js';

/** A project's flags, read once and shared by every request until a flag changes. */
export interface TeamFlags {
  records: FeatureFlagRecord[];
  /** Active flags, in id order: what `/flags` evaluates. */
  active: FlagDefinition[];
  /**
   * `active` compiled for evaluation, with recent ids' hashes: built once per snapshot, on the first
   * `/flags` request (local evaluation never needs it; see `compiledFlags`).
   */
  compiled: CompiledFlagSet | null;
  groupTypeMapping: Record<string, string>;
  cohortIds: number[];
  /** Keys of active flags with experience continuity. */
  continuityKeys: string[];
  /** Serialised answers (local evaluation) built from this snapshot, by variant. */
  rendered: Map<string, string>;
}

/** The snapshot's compiled flags, built on first use. */
export function compiledFlags(flags: TeamFlags): CompiledFlagSet {
  flags.compiled ??= new CompiledFlagSet(flags.active);
  return flags.compiled;
}

export const FLAGS_CHANGED = 'flags:changed';

export interface FlagCache {
  get(teamId: number): Promise<TeamFlags>;
  /** Forgets the project's flags here and, over the bus, on every node. */
  changed(teamId: number): Promise<void>;
  /** Re-reads the group type mapping (a new group type was named by a request). */
  refreshGroupTypes(teamId: number): Promise<Record<string, string>>;
}

export const toDefinition = (f: FeatureFlagRecord): FlagDefinition => ({
  id: f.id,
  key: f.key,
  version: f.version,
  active: f.active,
  ensureExperienceContinuity: f.ensureExperienceContinuity,
  filters: f.filters,
});

async function load(db: MetaDb, teamId: number): Promise<TeamFlags> {
  const [records, mapping] = await Promise.all([liveFeatureFlags(db, teamId), groupTypeMapping(db, teamId)]);
  const active = records.filter((f) => f.active).map(toDefinition);
  return {
    records,
    active,
    compiled: null,
    groupTypeMapping: mapping,
    cohortIds: [...new Set(active.flatMap((f) => cohortIdsOf(f.filters.groups ?? [])))],
    continuityKeys: active.filter((f) => f.ensureExperienceContinuity).map((f) => f.key),
    rendered: new Map(),
  };
}

/**
 * Per-project flag definitions in memory. A change made through the API clears the project's entry
 * on this node at once and on the others through the bus (Redis), so the next `/flags` request
 * anywhere sees it. Loads that raced with a change are not kept. `ttlMs` bounds staleness for
 * changes made outside the API (the CLI, another tool writing the database).
 */
export function createFlagCache(
  db: MetaDb,
  bus: Bus,
  options: { ttlMs?: number; onError?: (e: unknown) => void } = {},
): FlagCache {
  const ttlMs = options.ttlMs ?? 60_000;
  const entries = new Map<number, { value: Promise<TeamFlags>; at: number; generation: number }>();
  const generations = new Map<number, number>();
  const forget = (teamId: number) => {
    generations.set(teamId, (generations.get(teamId) ?? 0) + 1);
    entries.delete(teamId);
  };
  bus
    .subscribe(FLAGS_CHANGED, (message) => {
      const teamId = (message as { teamId?: unknown })?.teamId;
      if (typeof teamId === 'number') forget(teamId);
    })
    .catch((e) => options.onError?.(e));

  return {
    get(teamId) {
      const hit = entries.get(teamId);
      const generation = generations.get(teamId) ?? 0;
      if (hit && hit.generation === generation && Date.now() - hit.at < ttlMs) return hit.value;
      const value = load(db, teamId);
      const entry = { value, at: Date.now(), generation };
      if (entries.size > 10_000) entries.clear();
      entries.set(teamId, entry);
      value.then(
        () => {
          if ((generations.get(teamId) ?? 0) !== generation && entries.get(teamId) === entry)
            entries.delete(teamId);
        },
        () => {
          if (entries.get(teamId) === entry) entries.delete(teamId);
        },
      );
      return value;
    },
    async changed(teamId) {
      forget(teamId);
      await bus.publish(FLAGS_CHANGED, { teamId }).catch((e) => options.onError?.(e));
    },
    async refreshGroupTypes(teamId) {
      const mapping = await groupTypeMapping(db, teamId);
      const hit = entries.get(teamId);
      if (hit) {
        const flags = await hit.value;
        flags.groupTypeMapping = mapping;
        flags.rendered.clear();
      }
      return mapping;
    },
  };
}
