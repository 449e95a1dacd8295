import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CohortState } from '../../src/domain/flags/cohorts.js';
import { type EvaluationContext, evaluateFlag } from '../../src/domain/flags/evaluate.js';
import { flagHash, variantFor } from '../../src/domain/flags/hash.js';
import { matchProperty } from '../../src/domain/flags/properties.js';
import type { FlagDefinition } from '../../src/domain/flags/types.js';
import { newUuid } from '../../src/domain/ids.js';
import {
  ensureGroupTypeIndex,
  insertDistinctId,
  insertPerson,
  saveGroup,
} from '../../src/store/meta/persons.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

describe('flag evaluation rules', () => {
  it("hashes and picks variants exactly as PostHog's SDK core does", async () => {
    const core = (await import('@posthog/core')) as unknown as {
      getFeatureFlagHash(key: string, id: string, salt?: string): Promise<number>;
      getFeatureFlagVariant(
        key: string,
        id: string,
        variants: Array<{ key: string; rollout_percentage: number }>,
      ): Promise<string | undefined>;
    };
    const variants = [
      { key: 'first', rollout_percentage: 50 },
      { key: 'second', rollout_percentage: 20 },
      { key: 'third', rollout_percentage: 20 },
      { key: 'fourth', rollout_percentage: 10 },
    ];
    for (let i = 0; i < 2000; i++) {
      const id = i % 3 === 0 ? `user-${i}` : i % 3 === 1 ? `ünïcødé-${i}-🦔` : String(i * 7919);
      const key = `flag-${i % 17}`;
      expect(flagHash(key, id)).toBe(await core.getFeatureFlagHash(key, id));
      expect(variantFor(key, id, variants)).toBe(
        (await core.getFeatureFlagVariant(key, id, variants)) ?? null,
      );
    }
  });

  it('computes SHA-1 prefixes as node:crypto does, at every block boundary and for any UTF-8', async () => {
    const { createHash } = await import('node:crypto');
    const { sha1Prefix60 } = await import('../../src/domain/flags/sha1.js');
    const texts = ['', 'a', 'é', '🦔'.repeat(300)];
    for (let n = 0; n < 200; n++) texts.push('x'.repeat(n), `${'ü'.repeat(n % 40)}${n}`);
    for (const t of texts)
      expect(sha1Prefix60(t)).toBe(
        Number.parseInt(createHash('sha1').update(t).digest('hex').slice(0, 15), 16),
      );
    // The flag hash writes key, '.', identifier and salt straight into the block, in any script.
    const { sha1Parts } = await import('../../src/domain/flags/sha1.js');
    for (const [a, b, c] of [
      ['flag', 'user', ''],
      ['clé', '🦔-user', 'variant'],
      ['k'.repeat(60), 'ü'.repeat(30), 'variant'],
      ['', '', ''],
    ] as const)
      expect(sha1Parts(a, '.', b, c)).toBe(sha1Prefix60(`${a}.${b}${c}`));
  });

  it('buckets as node:crypto does for thousands of random keys and ids, packed or not', async () => {
    // An independent oracle for the hand-written SHA-1: PostHog's formula over node:crypto.
    const { createHash } = await import('node:crypto');
    const { flagHasher } = await import('../../src/domain/flags/hash.js');
    const oracle = (key: string, id: string, salt: string) =>
      Number.parseInt(createHash('sha1').update(`${key}.${id}${salt}`).digest('hex').slice(0, 15), 16) /
      2 ** 60;
    const alphabet = ['a', 'Z', '0', '-', '.', '_', ' ', '~', 'é', 'ß', 'ü', '中', '🦔', '\u0000', '\u007f'];
    let seed = 39;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const text = (length: number, ascii: boolean) => {
      let out = '';
      for (let i = 0; i < length; i++)
        out += alphabet[Math.floor(random() * (ascii ? 9 : alphabet.length))] as string;
      return out;
    };
    for (let i = 0; i < 4000; i++) {
      const ascii = i % 4 !== 3;
      const key = text(1 + Math.floor(random() * (i % 2 === 0 ? 20 : 60)), ascii || i % 8 === 3);
      const id = text(i % 201, ascii);
      const salt = i % 3 === 0 ? 'variant' : '';
      const expected = oracle(key, id, salt);
      expect(flagHasher(key)(id, salt as '' | 'variant')).toBe(expected);
      expect(flagHash(key, id, salt)).toBe(expected);
    }
  });

  it('matches operators with the flags service semantics', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const m = (operator: string, value: unknown, props: Record<string, unknown>) =>
      matchProperty({ key: 'k', operator, value }, props, now);
    expect(m('exact', 'True', { k: true })).toBe(true);
    expect(m('exact', ['a', 'B'], { k: 'b' })).toBe(true);
    expect(m('is_not', 'x', {})).toBe(true);
    expect(m('not_icontains', 'x', {})).toBe(true);
    expect(m('icontains', 'x', {})).toBe(false);
    expect(m('gt', '10', { k: '11' })).toBe(true);
    expect(m('gt', '10', { k: 'eleven' })).toBe(false);
    expect(m('regex', '(', { k: '(' })).toBe(false);
    expect(m('not_regex', '(', { k: '(' })).toBe(false);
    expect(m('semver_gt', '1.2.3', { k: 'v1.10' })).toBe(true);
    expect(m('semver_lt', '1.2.3', { k: '1.2.3-beta' })).toBe(true);
    expect(m('semver_caret', '0.2.3', { k: '0.2.9' })).toBe(true);
    expect(m('semver_caret', '0.2.3', { k: '0.3.0' })).toBe(false);
    expect(m('semver_wildcard', '1.*', { k: '1.99.0' })).toBe(true);
    expect(m('is_date_before', '-30d', { k: '2025-11-01T00:00:00Z' })).toBe(true);
    expect(m('is_date_after', '2025-12-31', { k: '2025-12-31T00:00:01Z' })).toBe(true);
    expect(m('is_not_set', null, {})).toBe(true);
  });

  const ctx = (over: Partial<EvaluationContext> = {}): EvaluationContext => ({
    distinctId: 'd1',
    personProperties: { plan: 'pro' },
    groups: {},
    groupProperties: {},
    groupTypeMapping: {},
    hashKeyOverrides: new Map(),
    anonDistinctId: null,
    cohorts: null,
    now: new Date(),
    ...over,
  });
  const cohortFlag: FlagDefinition = {
    id: 1,
    key: 'cohort-flag',
    version: 1,
    active: true,
    ensureExperienceContinuity: false,
    filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: 7 }], rollout_percentage: 100 }] },
  };

  it('reports an error for a cohort condition when no cohort source is wired, instead of guessing', () => {
    const r = evaluateFlag(cohortFlag, ctx());
    expect(r).toMatchObject({ enabled: false, failed: true, reason: { code: 'evaluation_error' } });
  });

  it('evaluates cohorts through the CohortLookup port: property cohorts, nesting, static membership', () => {
    const cohorts = new Map<number, CohortState>([
      [
        7,
        {
          kind: 'properties',
          filters: {
            type: 'OR',
            values: [
              {
                type: 'AND',
                values: [
                  { key: 'plan', value: 'pro', type: 'person' },
                  { key: 'id', type: 'cohort', value: 8 },
                ],
              },
            ],
          },
        },
      ],
      [8, { kind: 'membership', member: true }],
    ]);
    expect(evaluateFlag(cohortFlag, ctx({ cohorts })).enabled).toBe(true);
    expect(evaluateFlag(cohortFlag, ctx({ cohorts, personProperties: { plan: 'free' } })).enabled).toBe(
      false,
    );
    const notIn = {
      ...cohortFlag,
      filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', operator: 'not_in', value: 8 }] }] },
    };
    expect(evaluateFlag(notIn, ctx({ cohorts })).enabled).toBe(false);
    expect(evaluateFlag(cohortFlag, ctx({ cohorts: new Map([[7, { kind: 'unavailable' }]]) })).failed).toBe(
      true,
    );
  });
});

describe(`flag evaluation with stored persons and groups (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness();
    base = `/api/projects/${h.boot.project_id}/feature_flags/`;
  });
  afterAll(async () => h.close());
  const flags = async (body: Record<string, unknown>) =>
    (
      await h.app.inject({
        method: 'POST',
        url: '/flags/?v=2',
        payload: { token: h.boot.project_api_key, ...body },
      })
    ).json();

  it('reads stored person properties (request properties win) and group properties', async () => {
    const team = h.boot.project_id;
    const personId = newUuid();
    await insertPerson(h.deps.meta, {
      id: personId,
      teamId: team,
      properties: { plan: 'enterprise', country: 'DE' },
      isIdentified: true,
      version: 0,
      createdAt: new Date().toISOString(),
    });
    await insertDistinctId(h.deps.meta, team, { distinctId: 'stored-user', personId, version: 0 });
    const index = (await ensureGroupTypeIndex(h.deps.meta, team, 'company')) as number;
    await saveGroup(
      h.deps.meta,
      {
        teamId: team,
        groupTypeIndex: index,
        groupKey: 'acme',
        properties: { seats: '250' },
        version: 0,
        createdAt: new Date().toISOString(),
      },
      true,
    );
    await h.request('POST', base, {
      body: {
        key: 'enterprise-only',
        filters: { groups: [{ properties: [{ key: 'plan', value: 'enterprise', type: 'person' }] }] },
      },
    });
    await h.request('POST', base, {
      body: {
        key: 'big-companies',
        filters: {
          aggregation_group_type_index: index,
          groups: [
            {
              properties: [
                { key: 'seats', value: '100', operator: 'gt', type: 'group', group_type_index: index },
              ],
              rollout_percentage: 100,
            },
          ],
        },
      },
    });
    const stored = await flags({ distinct_id: 'stored-user' });
    expect(stored.flags['enterprise-only'].enabled).toBe(true);
    expect(stored.flags['big-companies']).toMatchObject({
      enabled: false,
      reason: { code: 'no_group_type' },
    });
    expect(
      (await flags({ distinct_id: 'stored-user', person_properties: { plan: 'free' } })).flags[
        'enterprise-only'
      ].enabled,
    ).toBe(false);
    expect(
      (await flags({ distinct_id: 'x', groups: { company: 'acme' } })).flags['big-companies'].enabled,
    ).toBe(true);
    expect(
      (
        await flags({
          distinct_id: 'x',
          groups: { company: 'acme' },
          group_properties: { company: { seats: '5' } },
        })
      ).flags['big-companies'].enabled,
    ).toBe(false);
  });

  it('keeps the anonymous bucketing across identify with experience continuity', async () => {
    const team = h.boot.project_id;
    const variants = [
      { key: 'a', rollout_percentage: 25 },
      { key: 'b', rollout_percentage: 25 },
      { key: 'c', rollout_percentage: 25 },
      { key: 'd', rollout_percentage: 25 },
    ];
    await h.request('POST', base, {
      body: {
        key: 'sticky',
        ensure_experience_continuity: true,
        filters: { groups: [{ rollout_percentage: 100 }], multivariate: { variants } },
      },
    });
    const personId = newUuid();
    await insertPerson(h.deps.meta, {
      id: personId,
      teamId: team,
      properties: {},
      isIdentified: true,
      version: 0,
      createdAt: new Date().toISOString(),
    });
    // Pick ids whose own buckets differ, so the test shows which one was used.
    let anon = 'anon-0';
    for (let i = 0; variantFor('sticky', anon, variants) === variantFor('sticky', 'logged-in', variants); i++)
      anon = `anon-${i}`;
    await insertDistinctId(h.deps.meta, team, { distinctId: anon, personId, version: 0 });
    await insertDistinctId(h.deps.meta, team, { distinctId: 'logged-in', personId, version: 0 });
    const first = await flags({ distinct_id: 'logged-in', $anon_distinct_id: anon });
    expect(first.flags.sticky.variant).toBe(variantFor('sticky', anon, variants));
    // Remembered: later requests without the anonymous id keep it.
    expect((await flags({ distinct_id: 'logged-in' })).flags.sticky.variant).toBe(
      variantFor('sticky', anon, variants),
    );
  });
});
