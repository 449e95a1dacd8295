import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flagsBody, flagsJson } from '../../src/api/feature-flags-response.js';
import { createFlagCache } from '../../src/domain/flags/cache.js';
import { evaluateFlag } from '../../src/domain/flags/evaluate.js';
import { flagHash, HashMemo } from '../../src/domain/flags/hash.js';
import { createFlagEvaluator, FlagPersonCache, parseFlagsRequest } from '../../src/domain/flags/service.js';
import type { FlagDefinition, FlagResult } from '../../src/domain/flags/types.js';
import { newUuid } from '../../src/domain/ids.js';
import { insertDistinctId, insertPerson, updatePerson } from '../../src/store/meta/persons.js';
import { findTeam } from '../../src/store/meta/teams.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/**
 * What makes `/flags` cheap per request (shared results with their bytes written once, remembered
 * hashes, the person remembered briefly) must not change what it answers.
 */
describe('flag answers written from shared results', () => {
  const flag = (key: string, extra: Partial<FlagDefinition['filters']> = {}): FlagDefinition => ({
    id: key.length,
    key,
    version: 3,
    active: true,
    ensureExperienceContinuity: false,
    filters: { groups: [{ properties: [], rollout_percentage: 50 }], ...extra },
  });
  const ctx = (distinctId: string) => ({
    distinctId,
    personProperties: {},
    groups: {},
    groupProperties: {},
    groupTypeMapping: {},
    hashKeyOverrides: new Map<string, string>(),
    anonDistinctId: null,
    cohorts: null,
    now: new Date(),
  });

  it('writes the same JSON as the generic serializer, for every outcome and any key', () => {
    const flags = [
      flag('plain'),
      flag('clé-🦔 "quoted"\\'),
      flag('multi', {
        multivariate: {
          variants: [
            { key: 'a', rollout_percentage: 50 },
            { key: 'b', rollout_percentage: 50 },
          ],
        },
        payloads: { a: { nested: ['x', 1] }, b: '"text"', true: 1 },
        groups: [{ properties: [], rollout_percentage: 100 }],
      }),
      flag('off', { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] }),
    ];
    for (const id of ['u1', 'u2', 'u3', 'ü-4']) {
      const results: FlagResult[] = flags.map((f) => evaluateFlag(f, ctx(id)));
      results.push({
        key: 'failed',
        enabled: false,
        variant: null,
        failed: true,
        reason: { code: 'evaluation_error', condition_index: null, description: 'Cohort 7 is "unavailable"' },
        payload: null,
        id: 9,
        version: 1,
      });
      const evaluation = { results, errorsWhileComputingFlags: true };
      const now = new Date('2026-01-02T03:04:05Z');
      const config = { sessionRecording: false, supportedCompression: ['gzip'] };
      for (const withConfig of [null, config])
        for (const requestId of ['req-1', 'ré-"🦔"']) {
          const bytes = flagsJson('details', evaluation, requestId, now, withConfig);
          expect(JSON.parse(bytes.toString())).toEqual(
            JSON.parse(JSON.stringify(flagsBody('details', evaluation, requestId, now, withConfig))),
          );
        }
    }
    // No flags: an empty map, not a stray comma.
    const empty = flagsJson(
      'details',
      { results: [], errorsWhileComputingFlags: false },
      'r',
      new Date(),
      null,
    );
    expect(JSON.parse(empty.toString()).flags).toEqual({});
  });

  it('writes a shared (frozen) results array as the generic serializer does, every time', () => {
    const flags = Array.from({ length: 20 }, (_, i) => flag(`shared-${i}`));
    const results = Object.freeze(flags.map((f) => evaluateFlag(f, ctx('u'))));
    const evaluation = { results, errorsWhileComputingFlags: false };
    for (const id of ['a', 'b']) {
      const now = new Date();
      expect(JSON.parse(flagsJson('details', evaluation, id, now, null).toString())).toEqual(
        JSON.parse(JSON.stringify(flagsBody('details', evaluation, id, now, null))),
      );
    }
  });

  it('never hands out the bytes of an answer still held (answers share slabs)', () => {
    const flags = Array.from({ length: 50 }, (_, i) => flag(`slab-${i}`));
    const evaluation = {
      results: flags.map((f) => evaluateFlag(f, ctx('u'))),
      errorsWhileComputingFlags: false,
    };
    // Enough answers to fill several slabs, all kept alive, then read back.
    const answers = Array.from({ length: 400 }, (_, i) =>
      flagsJson('details', evaluation, `req-${i}`, new Date(i), null),
    );
    answers.forEach((bytes, i) => {
      const body = JSON.parse(bytes.toString());
      expect(body.requestId).toBe(`req-${i}`);
      expect(Object.keys(body.flags)).toHaveLength(50);
    });
  });

  it('shares one frozen result per outcome, and a changed definition gets its own', () => {
    const f = flag('shared', { groups: [{ properties: [], rollout_percentage: 100 }] });
    const a = evaluateFlag(f, ctx('x'));
    expect(evaluateFlag(f, ctx('y'))).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    const changed = { ...f, version: 4 };
    expect(evaluateFlag(changed, ctx('x')).version).toBe(4);
  });

  it('remembers hashes without changing them, within its bound', () => {
    const memo = new HashMemo(100);
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < 200; i++) {
        expect(memo.hash(`flag-${i % 7}`, `user-${i}`, '')).toBe(flagHash(`flag-${i % 7}`, `user-${i}`));
        expect(memo.hash(`flag-${i % 7}`, `user-${i}`, 'variant')).toBe(
          flagHash(`flag-${i % 7}`, `user-${i}`, 'variant'),
        );
      }
  });
});

describe(`the person as flags read it, remembered briefly (${backend})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('is read once per ttl, then again; forget and fresh read the store at once; 0 never remembers', async () => {
    const team = h.boot.project_id;
    const id = newUuid();
    const person = {
      id,
      teamId: team,
      properties: { plan: 'free' },
      isIdentified: true,
      version: 0,
      createdAt: new Date().toISOString(),
    };
    await insertPerson(h.deps.meta, person);
    await insertDistinctId(h.deps.meta, team, { distinctId: 'cached-user', personId: id, version: 0 });
    const cache = new FlagPersonCache(h.deps.meta, 300);
    const never = new FlagPersonCache(h.deps.meta, 0);
    expect((await cache.get(team, 'cached-user'))?.properties).toEqual({ plan: 'free' });
    expect(await cache.get(team, 'nobody')).toBeUndefined();

    await updatePerson(h.deps.meta, { ...person, properties: { plan: 'pro' }, version: 1 });
    expect((await never.get(team, 'cached-user'))?.properties).toEqual({ plan: 'pro' });
    // Within the ttl the remembered properties; the staleness is bounded by it.
    expect((await cache.get(team, 'cached-user'))?.properties).toEqual({ plan: 'free' });
    await new Promise((r) => setTimeout(r, 350));
    expect((await cache.get(team, 'cached-user'))?.properties).toEqual({ plan: 'pro' });

    await updatePerson(h.deps.meta, { ...person, properties: { plan: 'enterprise' }, version: 2 });
    expect((await cache.fresh(team, 'cached-user'))?.properties).toEqual({ plan: 'enterprise' });
    await updatePerson(h.deps.meta, { ...person, properties: { plan: 'team' }, version: 3 });
    cache.forget(team, ['cached-user']);
    expect((await cache.get(team, 'cached-user'))?.properties).toEqual({ plan: 'team' });
  });

  it('writes continuity keys from the store, not a remembered person', async () => {
    const team = h.boot.project_id;
    const res = await h.request('POST', `/api/projects/${team}/feature_flags/`, {
      body: {
        key: 'sticky-cached',
        ensure_experience_continuity: true,
        filters: {
          groups: [{ properties: [], rollout_percentage: 100 }],
          multivariate: {
            variants: [
              { key: 'a', rollout_percentage: 50 },
              { key: 'b', rollout_percentage: 50 },
            ],
          },
        },
      },
    });
    expect(res.statusCode).toBe(201);
    const id = newUuid();
    await insertPerson(h.deps.meta, {
      id,
      teamId: team,
      properties: {},
      isIdentified: true,
      version: 0,
      createdAt: new Date().toISOString(),
    });
    await insertDistinctId(h.deps.meta, team, { distinctId: 'known-sticky', personId: id, version: 0 });
    const flags = async (body: Record<string, unknown>) =>
      (
        await h.app.inject({
          method: 'POST',
          url: '/flags/?v=2',
          payload: { token: h.boot.project_api_key, ...body },
        })
      ).json().flags['sticky-cached'].variant as string;
    // Remembered without continuity keys, then a request with an anonymous id writes them: the
    // variant follows the anonymous id from then on, also for requests without it.
    // (The ids are chosen so that the three bucket into different variants than each other.)
    const own = await flags({ distinct_id: 'known-sticky' });
    const first = await flags({ distinct_id: 'known-sticky', $anon_distinct_id: 'anon-sticky-4' });
    expect(first).not.toBe(own);
    expect(await flags({ distinct_id: 'known-sticky' })).toBe(first);
    expect(await flags({ distinct_id: 'known-sticky', $anon_distinct_id: 'another-anon-3' })).toBe(first);
  });

  it("hands an id's last answer out again only for the same person, properties and time-free flags", async () => {
    const team = h.boot.project_id;
    const create = async (key: string, property: Record<string, unknown>) =>
      expect(
        (
          await h.request('POST', `/api/projects/${team}/feature_flags/`, {
            body: { key, filters: { groups: [{ properties: [property], rollout_percentage: 100 }] } },
          })
        ).statusCode,
      ).toBe(201);
    await create('memo-plan', { key: 'plan', type: 'person', operator: 'exact', value: ['pro'] });
    const person = {
      id: newUuid(),
      teamId: team,
      properties: { plan: 'free', signup: '2026-03-01T00:00:00Z' },
      isIdentified: true,
      version: 0,
      createdAt: new Date().toISOString(),
    };
    await insertPerson(h.deps.meta, person);
    await insertDistinctId(h.deps.meta, team, { distinctId: 'memo-user', personId: person.id, version: 0 });
    let clock = new Date('2026-03-01T12:00:00Z');
    const cache = createFlagCache(h.deps.meta, h.stores.bus);
    const evaluate = createFlagEvaluator({ meta: h.deps.meta, now: () => clock }, cache, null, {
      personCacheMs: 300,
    });
    const record = (await findTeam(h.deps.meta, team)) as NonNullable<Awaited<ReturnType<typeof findTeam>>>;
    const flag = async (key: string, sent: Record<string, unknown> = {}) =>
      (
        await evaluate(record, parseFlagsRequest({ distinct_id: 'memo-user', person_properties: sent }))
      ).results.find((r) => r.key === key)?.enabled;

    expect(await flag('memo-plan')).toBe(false);
    expect(await flag('memo-plan')).toBe(false);
    expect(await flag('memo-plan', { plan: 'pro' })).toBe(true);
    expect(await flag('memo-plan', { plan: 'pro' })).toBe(true);
    expect(await flag('memo-plan', { plan: 'pro', extra: 1 })).toBe(true);
    expect(await flag('memo-plan', { plan: 'free', extra: 1 })).toBe(false);
    expect(await flag('memo-plan', { plan: ['pro'] })).toBe(false);
    expect(await flag('memo-plan')).toBe(false);
    // The stored person changes: seen once the remembered person expires.
    await updatePerson(h.deps.meta, {
      ...person,
      properties: { ...person.properties, plan: 'pro' },
      version: 1,
    });
    await new Promise((r) => setTimeout(r, 350));
    expect(await flag('memo-plan')).toBe(true);
    expect(await flag('memo-plan')).toBe(true);

    // A flag that reads the clock: the same person and request, another answer a day later.
    await create('memo-recent', { key: 'signup', type: 'person', operator: 'is_date_after', value: '-1d' });
    await cache.changed(team);
    expect(await flag('memo-recent')).toBe(true);
    expect(await flag('memo-recent')).toBe(true);
    clock = new Date('2026-03-03T12:00:00Z');
    expect(await flag('memo-recent')).toBe(false);
  });
});
