import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const QUESTIONS = [
  {
    type: 'single_choice',
    question: 'Would you use it?',
    choices: ['Yes', 'No'],
    branching: { type: 'response_based', responseValues: { 0: 1, 1: 'end' } },
  },
  { type: 'rating', question: 'How likely are you to recommend us?', scale: 10, display: 'number' },
  { type: 'open', question: 'Anything else?' },
  { type: 'multiple_choice', question: 'Which?', choices: ['A', 'B'], hasOpenChoice: true },
  { type: 'link', question: 'Read more', link: 'https://example.com/more' },
];

describe(`surveys resource (${backend})`, () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness();
    base = `/api/projects/${h.boot.project_id}/surveys/`;
  });
  afterAll(async () => h?.close());

  const post = (body: Record<string, unknown>, key?: string) =>
    h.request('POST', base, { body, ...(key ? { key } : {}) });
  const create = async (body: Record<string, unknown>) => {
    const res = await post(body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const flag = async (id: number) =>
    (await h.request('GET', `/api/projects/${h.boot.project_id}/feature_flags/${id}/`)).json();

  it('creates a survey with PostHog fields, question ids and an internal targeting flag', async () => {
    const s = await create({
      name: 'Product fit',
      type: 'popover',
      questions: QUESTIONS,
      conditions: { url: '/pricing', urlMatchType: 'icontains', events: { values: [{ name: 'signup' }] } },
      appearance: { backgroundColor: '#eeeded', position: 'right' },
      responses_limit: 100,
    });
    expect(s.id).toMatch(UUID);
    expect(s).toMatchObject({
      name: 'Product fit',
      type: 'popover',
      schedule: 'once',
      archived: false,
      start_date: null,
      end_date: null,
      responses_limit: 100,
      linked_flag: null,
      targeting_flag: null,
      conditions: { url: '/pricing' },
      appearance: { position: 'right' },
      created_by: { email: h.boot.user_email },
    });
    expect(s.questions).toHaveLength(5);
    for (const q of s.questions) expect(q.id).toMatch(UUID);
    expect(s.questions[0].branching).toEqual({ type: 'response_based', responseValues: { 0: 1, 1: 'end' } });
    // Hidden from people who answered or dismissed it; inactive until launched.
    expect(s.internal_targeting_flag.key).toMatch(/^survey-targeting-product-fit-/);
    expect(s.internal_targeting_flag.active).toBe(false);
    expect(s.internal_targeting_flag.filters.groups[0].properties.map((p: { key: string }) => p.key)).toEqual(
      [`$survey_dismissed/${s.id}`, `$survey_responded/${s.id}`],
    );
    expect(s.feature_flag_keys).toContainEqual({
      key: 'internal_targeting_flag_key',
      value: s.internal_targeting_flag.key,
    });
    // Given question ids are kept, so answers keep their property keys across edits.
    const again = await h.request('PATCH', `${base}${s.id}/`, { body: { questions: s.questions } });
    expect(again.json().questions.map((q: { id: string }) => q.id)).toEqual(
      s.questions.map((q: { id: string }) => q.id),
    );
  });

  it('makes the targeting flag from targeting_flag_filters, and links a flag', async () => {
    const linked = await h.request('POST', `/api/projects/${h.boot.project_id}/feature_flags/`, {
      body: { key: 'beta', filters: { groups: [{ rollout_percentage: 100, properties: [] }] } },
    });
    const s = await create({
      name: 'Targeted',
      type: 'popover',
      questions: [{ type: 'open', question: 'Hi?' }],
      linked_flag_id: linked.json().id,
      targeting_flag_filters: {
        groups: [
          {
            rollout_percentage: 100,
            properties: [{ key: 'plan', value: ['pro'], type: 'person', operator: 'exact' }],
          },
        ],
      },
    });
    expect(s.linked_flag).toMatchObject({ key: 'beta' });
    expect(s.linked_flag_id).toBe(linked.json().id);
    expect(s.targeting_flag.key).toMatch(/^survey-targeting-/);
    expect(s.targeting_flag.filters.groups[0].properties[0].key).toBe('plan');
    // Launch: the internal flag turns on; stop: off again.
    const launched = await h.request('PATCH', `${base}${s.id}/`, {
      body: { start_date: new Date().toISOString() },
    });
    expect(launched.json().internal_targeting_flag.active).toBe(true);
    const stopped = await h.request('PATCH', `${base}${s.id}/`, {
      body: { end_date: new Date().toISOString() },
    });
    expect(stopped.json().internal_targeting_flag.active).toBe(false);
    // Removing the targeting deletes its flag; deleting the survey deletes the internal one.
    const targetingId = s.targeting_flag.id;
    const removed = await h.request('PATCH', `${base}${s.id}/`, { body: { targeting_flag_filters: null } });
    expect(removed.json().targeting_flag).toBeNull();
    expect((await flag(targetingId)).deleted).toBe(true);
    expect((await h.request('DELETE', `${base}${s.id}/`)).statusCode).toBe(204);
    expect((await flag(s.internal_targeting_flag.id)).deleted).toBe(true);
    expect((await flag(linked.json().id)).deleted).toBe(false);
    expect((await h.request('GET', `${base}${s.id}/`)).statusCode).toBe(404);
  });

  it('refuses bad questions, branching, appearance and links with 400s', async () => {
    const bad = async (body: Record<string, unknown>, attr: string, detail: RegExp) => {
      const res = await post({ name: `bad ${Math.random()}`, type: 'popover', ...body });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ type: 'validation_error', attr });
      expect(res.json().detail).toMatch(detail);
    };
    await bad({ questions: [{ type: 'essay', question: 'x' }] }, 'questions', /type must be one of/);
    await bad({ questions: [{ type: 'open' }] }, 'questions', /question is required/);
    await bad({ questions: [{ type: 'single_choice', question: 'x', choices: [] }] }, 'questions', /choices/);
    await bad(
      { questions: [{ type: 'open', question: 'x', branching: { type: 'specific_question', index: 5 } }] },
      'questions',
      /does not exist/,
    );
    await bad(
      {
        questions: [
          {
            type: 'single_choice',
            question: 'x',
            choices: ['a'],
            branching: { type: 'response_based', responseValues: { 0: 9 } },
          },
          { type: 'open', question: 'y' },
        ],
      },
      'questions',
      /does not exist/,
    );
    await bad(
      { questions: [{ type: 'open', question: 'x', branching: { type: 'jump' } }] },
      'questions',
      /branching type/,
    );
    await bad(
      { questions: [{ type: 'link', question: 'x', link: 'javascript:alert(1)' }] },
      'questions',
      /https, mailto/,
    );
    await bad(
      { questions: [{ type: 'rating', question: 'x', display: 'emoji', scale: 10 }] },
      'questions',
      /scale/,
    );
    await bad({ appearance: { css: 'x'.repeat(50_000) } }, 'appearance', /at most/);
    await bad({ conditions: { events: { values: [{}] } } }, 'conditions', /name/);
    await bad({ type: 'banner' }, 'type', /not a valid choice/);
    await bad({ linked_flag_id: 999999 }, 'linked_flag_id', /does not exist/);
    await bad({ start_date: 'soon' }, 'start_date', /wrong format/);
    await create({ name: 'Unique', type: 'api', questions: [] });
    const dup = await post({ name: 'Unique', type: 'api', questions: [] });
    expect(dup.statusCode).toBe(400);
    expect(dup.json()).toMatchObject({ attr: 'name', code: 'unique' });
    expect((await h.request('GET', `${base}not-a-uuid/`)).statusCode).toBe(404);
  });

  it('lists newest first under both prefixes and asks for the survey scopes', async () => {
    const list = (await h.request('GET', base)).json();
    expect(list.count).toBeGreaterThan(0);
    const env = await h.request('GET', `/api/environments/${h.boot.project_id}/surveys/`);
    expect(env.json().count).toBe(list.count);
    const reader = await h.user({ organizationId: h.boot.organization_id, key: { scopes: ['survey:read'] } });
    expect((await h.request('GET', base, { key: reader.key })).statusCode).toBe(200);
    const denied = await post({ name: 'no', type: 'api' }, reader.key);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().detail).toBe("API key missing required scope 'survey:write'");
  });
});
