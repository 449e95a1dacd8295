import { validationError } from '../../errors.js';
import type { MetaDb } from '../../store/meta/db.js';
import {
  groupPropertiesOf,
  type PersonForFlags,
  personForFlags,
  saveHashKeyOverrides,
} from '../../store/meta/flag-lookups.js';
import type { TeamRecord } from '../../store/meta/teams.js';
import { compiledFlags, type FlagCache } from './cache.js';
import type { CohortLookup, CohortState } from './cohorts.js';
import type { IdMemo } from './compiled-set.js';
import { type CompiledFlag, type EvaluationContext, evaluateCompiled } from './evaluate.js';
import type { FlagResult } from './types.js';

/** What an SDK sends to `/flags` (and `/decide`), once decoded and checked. */
export interface FlagsRequest {
  distinctId: string;
  anonDistinctId: string | null;
  personProperties: Record<string, unknown>;
  groups: Record<string, string>;
  groupProperties: Record<string, Record<string, unknown>>;
  /** `flag_keys_to_evaluate`: only these, when given. */
  flagKeys: string[] | null;
  /** `only_evaluate_survey_feature_flags`: only the flags surveys made (`survey-targeting-…`). */
  onlySurveyFlags: boolean;
}

/** The key prefix of the flags surveys make, which `only_evaluate_survey_feature_flags` keeps. */
export const SURVEY_FLAG_PREFIX = 'survey-targeting-';

export interface FlagsEvaluation {
  /** In flag order; may be shared between requests (frozen then): never modified. */
  results: readonly FlagResult[];
  errorsWhileComputingFlags: boolean;
}

export const REQUEST_LIMITS = {
  distinctIdLength: 400,
  propertiesPerMap: 2_000,
  groups: 20,
  flagKeys: 10_000,
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function propertyMap(value: unknown, attr: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw validationError(`${attr} must be an object.`, attr);
  if (Object.keys(value).length > REQUEST_LIMITS.propertiesPerMap)
    throw validationError(
      `${attr} may have at most ${REQUEST_LIMITS.propertiesPerMap} properties.`,
      attr,
      'max_length',
    );
  return value;
}

function identifier(value: unknown, attr: string, required: boolean): string | null {
  if (value === undefined || value === null || value === '') {
    if (required)
      throw validationError('The distinct_id field is missing from the request.', attr, 'required');
    return null;
  }
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value)))
    throw validationError(`${attr} must be a string.`, attr, 'invalid');
  const text = String(value);
  if (text.length > REQUEST_LIMITS.distinctIdLength)
    throw validationError(
      `${attr} is longer than ${REQUEST_LIMITS.distinctIdLength} characters.`,
      attr,
      'max_length',
    );
  return text;
}

/** The body fields PostHog's flags service reads; anything else is ignored. */
export function parseFlagsRequest(body: Record<string, unknown>): FlagsRequest {
  const distinctId = identifier(body.distinct_id, 'distinct_id', true) as string;
  const personProperties = propertyMap(body.person_properties, 'person_properties');
  const anonDistinctId = identifier(
    body.$anon_distinct_id ?? body.anon_distinct_id,
    '$anon_distinct_id',
    false,
  );
  const rawGroups = propertyMap(body.groups, 'groups');
  if (Object.keys(rawGroups).length > REQUEST_LIMITS.groups)
    throw validationError(
      `groups may name at most ${REQUEST_LIMITS.groups} group types.`,
      'groups',
      'max_length',
    );
  const groups: Record<string, string> = {};
  for (const [type, key] of Object.entries(rawGroups)) {
    const k = identifier(key, 'groups', false);
    if (k !== null) groups[type] = k;
  }
  const rawGroupProps = propertyMap(body.group_properties, 'group_properties');
  const groupProperties: Record<string, Record<string, unknown>> = {};
  for (const [type, props] of Object.entries(rawGroupProps))
    groupProperties[type] = propertyMap(props, 'group_properties');
  let flagKeys: string[] | null = null;
  if (body.flag_keys_to_evaluate !== undefined && body.flag_keys_to_evaluate !== null) {
    const keys = body.flag_keys_to_evaluate;
    if (
      !Array.isArray(keys) ||
      keys.length > REQUEST_LIMITS.flagKeys ||
      !keys.every((k) => typeof k === 'string')
    )
      throw validationError('flag_keys_to_evaluate must be a list of flag keys.', 'flag_keys_to_evaluate');
    flagKeys = keys as string[];
  }
  const onlySurveyFlags = body.only_evaluate_survey_feature_flags === true;
  return { distinctId, anonDistinctId, personProperties, groups, groupProperties, flagKeys, onlySurveyFlags };
}

/**
 * The person behind a distinct id as flags read it, remembered for `ttlMs`. SDKs ask for the same
 * user's flags on every page load and from every server-side call; without this each request
 * paid a metadata statement (a network round trip with PostgreSQL). Concurrent requests for one
 * id share one lookup. A property change made by ingestion is seen after at most `ttlMs` (PostHog's
 * own ingestion is asynchronous, and SDKs send the properties they just set with the request);
 * 0 turns the cache off. Entries this node changes (continuity keys) are dropped at once.
 */
export class FlagPersonCache {
  #entries = new Map<string, { value: Promise<PersonForFlags | undefined>; at: number }>();

  constructor(
    private readonly meta: MetaDb,
    private readonly ttlMs: number,
    private readonly max = 50_000,
  ) {}

  get(teamId: number, distinctId: string): Promise<PersonForFlags | undefined> {
    if (this.ttlMs <= 0) return personForFlags(this.meta, teamId, distinctId);
    const key = `${teamId}:${distinctId}`;
    const now = Date.now();
    const hit = this.#entries.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.value;
    const value = personForFlags(this.meta, teamId, distinctId);
    const entry = { value, at: now };
    if (this.#entries.size >= this.max) this.#entries.clear();
    this.#entries.set(key, entry);
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return value;
  }

  /** Reads the store now (and remembers what it read). */
  fresh(teamId: number, distinctId: string): Promise<PersonForFlags | undefined> {
    this.forget(teamId, [distinctId]);
    return this.get(teamId, distinctId);
  }

  forget(teamId: number, distinctIds: readonly string[]): void {
    for (const d of distinctIds) this.#entries.delete(`${teamId}:${d}`);
  }
}

/**
 * Evaluates a project's active flags for one request: definitions from the cache, then one store
 * read for the person (properties and continuity keys together, remembered briefly, see
 * FlagPersonCache), one for the named groups, one cohort lookup, whatever the number of flags.
 */
export function createFlagEvaluator(
  deps: { meta: MetaDb; now: () => Date },
  cache: FlagCache,
  cohorts: CohortLookup | null,
  options: { personCacheMs?: number } = {},
) {
  const persons = new FlagPersonCache(deps.meta, options.personCacheMs ?? 0);
  return async function evaluate(team: TeamRecord, request: FlagsRequest): Promise<FlagsEvaluation> {
    const snapshot = await cache.get(team.id);
    const compiled = compiledFlags(snapshot);
    let flags = compiled.flags;
    if (request.flagKeys) {
      const wanted = new Set(request.flagKeys);
      flags = flags.filter((c) => wanted.has(c.flag.key));
    }
    if (request.onlySurveyFlags) flags = flags.filter((c) => c.flag.key.startsWith(SURVEY_FLAG_PREFIX));
    if (flags.length === 0) return { results: [], errorsWhileComputingFlags: false };

    let mapping = snapshot.groupTypeMapping;
    let wantedGroups: Array<{ type: string; index: number; key: string }> = [];
    if (Object.keys(request.groups).length > 0) {
      // Only requests that name groups pay for resolving them.
      const known = new Set(Object.values(mapping));
      if (Object.keys(request.groups).some((type) => !known.has(type)))
        mapping = await cache.refreshGroupTypes(team.id);
      const indexOf = new Map(Object.entries(mapping).map(([index, name]) => [name, Number(index)]));
      wantedGroups = Object.entries(request.groups)
        .filter(([type]) => indexOf.has(type))
        .map(([type, key]) => ({ type, index: indexOf.get(type) as number, key }));
    }

    const anon =
      request.anonDistinctId && request.anonDistinctId !== request.distinctId ? request.anonDistinctId : null;
    // A request that may write continuity keys reads the person's current ones, not remembered ones.
    const mayWrite = anon !== null && snapshot.continuityKeys.length > 0;
    const [person, storedGroups] = await Promise.all([
      mayWrite ? persons.fresh(team.id, request.distinctId) : persons.get(team.id, request.distinctId),
      groupPropertiesOf(deps.meta, team.id, wantedGroups),
    ]);

    let overrides: ReadonlyMap<string, string> = person?.hashKeyOverrides ?? NO_OVERRIDES;
    const continuity = mayWrite ? snapshot.continuityKeys.filter((k) => !overrides.has(k)) : [];
    if (anon && continuity.length > 0) {
      // Remember the anonymous id as these flags' bucketing key for the person, before it changes.
      await saveHashKeyOverrides(deps.meta, team.id, [request.distinctId, anon], continuity, anon);
      persons.forget(team.id, [request.distinctId, anon]);
      const updated = new Map(overrides);
      for (const key of continuity) updated.set(key, anon);
      overrides = updated;
    }

    const groupProperties: Record<string, Record<string, unknown>> = {};
    for (const g of wantedGroups)
      groupProperties[g.type] = {
        ...(storedGroups.get(`${g.index}:${g.key}`) ?? {}),
        ...(request.groupProperties[g.type] ?? {}),
      };

    let cohortStates: Map<number, CohortState> | null = null;
    if (snapshot.cohortIds.length > 0 && cohorts)
      cohortStates = await cohorts.load(team.id, snapshot.cohortIds, person?.id ?? null);

    // The id's last answer again, without evaluating, when nothing it was made from has changed.
    const memo = compiled.memoFor(request.distinctId, person !== undefined);
    const reusable =
      memo !== null && flags === compiled.flags && compiled.timeless && wantedGroups.length === 0;
    if (reusable && memo.results !== null && memo.inputs !== null) {
      const last = memo.inputs;
      if (
        last.person === person &&
        last.overrides === overrides &&
        last.anon === anon &&
        samePrimitives(last.sent, request.personProperties)
      )
        return { results: memo.results, errorsWhileComputingFlags: false };
    }

    const ctx: EvaluationContext = {
      distinctId: request.distinctId,
      personProperties: mergedProperties(person?.properties, request.personProperties),
      groups: request.groups,
      groupProperties,
      groupTypeMapping: mapping,
      hashKeyOverrides: overrides,
      anonDistinctId: anon,
      cohorts: cohortStates,
      now: deps.now(),
      hashSlots: null,
    };
    if (memo === null) {
      ctx.hashSlots = compiled.scratchHashes();
      return evaluateAll(flags, ctx, null);
    }
    ctx.hashSlots = memo.hashes;
    const evaluation = evaluateAll(flags, ctx, flags === compiled.flags ? memo : null);
    if (flags === compiled.flags)
      memo.inputs =
        reusable && !evaluation.errorsWhileComputingFlags && Object.isFrozen(evaluation.results)
          ? { person, overrides, anon, sent: request.personProperties }
          : null;
    return evaluation;
  };
}

/**
 * Every flag, in order. With the id's memo, an answer made of the same shared results as its last
 * one is that last array itself (compared by identity as it goes; copied from the first change).
 */
function evaluateAll(
  flags: readonly CompiledFlag[],
  ctx: EvaluationContext,
  memo: IdMemo | null,
): FlagsEvaluation {
  const last = memo?.results ?? null;
  let out: FlagResult[] | null = null;
  let failed = false;
  for (let i = 0; i < flags.length; i++) {
    const r = evaluateCompiled(flags[i] as CompiledFlag, ctx);
    if (r.failed) failed = true;
    if (out === null) {
      if (last !== null && last[i] === r) continue;
      out = new Array(flags.length);
      for (let j = 0; j < i; j++) out[j] = (last as readonly FlagResult[])[j] as FlagResult;
    }
    out[i] = r;
  }
  if (out === null) return { results: last as readonly FlagResult[], errorsWhileComputingFlags: false };
  if (memo !== null && !failed) memo.results = Object.freeze(out);
  return { results: out, errorsWhileComputingFlags: failed };
}

/**
 * The same keys with the same primitive values (an object value is never taken as the same: the
 * request's are parsed anew each time). SDKs send the same few properties on every call.
 */
function samePrimitives(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const key in a) {
    const value = a[key];
    if (typeof value === 'object' && value !== null) return false;
    if (!Object.is(value, b[key]) || (value === undefined && !Object.hasOwn(b, key))) return false;
    count++;
  }
  for (const _ in b) count--;
  return count === 0;
}

/** Stored properties with the request's on top; no copy when either side is empty (the usual case). */
function mergedProperties(
  stored: Record<string, unknown> | undefined,
  sent: Record<string, unknown>,
): Record<string, unknown> {
  if (stored === undefined) return sent;
  for (const _ in sent) return { ...stored, ...sent };
  return stored;
}

const NO_OVERRIDES: ReadonlyMap<string, string> = new Map();

export type FlagEvaluator = ReturnType<typeof createFlagEvaluator>;
