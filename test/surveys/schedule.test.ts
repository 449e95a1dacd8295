import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** responses_limit and recurring iterations, as PostHog's periodic survey tasks apply them. */
describe(`survey limits and iterations (${backend})`, () => {
  let h: Harness;
  let base: string;
  let clock = Date.parse('2026-11-01T12:00:00Z');
  const sdk = async () =>
    (await h.app.inject({ method: 'GET', url: `/api/surveys/?token=${h.boot.project_api_key}` })).json() as {
      surveys: Array<{
        id: string;
        current_iteration: number | null;
        current_iteration_start_date: string | null;
      }>;
    };
  const sent = (surveyId: string, n: number, submission?: string): EventRow => ({
    uuid: randomUUID(),
    event: 'survey sent',
    team_id: h.boot.project_id,
    distinct_id: `user-${n}`,
    person_id: `00000000-0000-4000-8000-00000000000${n}`,
    timestamp: new Date(clock + n * 1000).toISOString().replace('T', ' ').replace('Z', '000'),
    properties: JSON.stringify({
      $survey_id: surveyId,
      ...(submission ? { $survey_submission_id: submission } : {}),
    }),
  });
  beforeAll(async () => {
    h = await startHarness({}, { now: () => new Date(clock) });
    base = `/api/projects/${h.boot.project_id}/surveys/`;
  });
  afterAll(async () => h?.close());

  it('a survey that reached responses_limit ends and leaves the SDK list; one below stays', async () => {
    const create = async (name: string, limit: number) =>
      (
        await h.request('POST', base, {
          body: {
            name,
            type: 'popover',
            questions: [{ type: 'open', question: 'Hi?' }],
            start_date: new Date(clock - 1000).toISOString(),
            responses_limit: limit,
          },
        })
      ).json() as { id: string; responses_limit: number; internal_targeting_flag: { id: number } };
    const full = await create('Full', 2);
    const room = await create('Room', 3);
    expect(full.responses_limit).toBe(2);
    expect((await sdk()).surveys.map((s) => s.id).sort()).toEqual([full.id, room.id].sort());
    await insertEvents(h.stores.events, [
      // Two events of one submission (a partial answer, then the whole) count once.
      sent(full.id, 1, 's1'),
      sent(full.id, 1, 's1'),
      sent(full.id, 2),
      sent(room.id, 3, 'r1'),
      sent(room.id, 3, 'r1'),
      sent(room.id, 4),
    ]);
    expect((await sdk()).surveys.map((s) => s.id)).toEqual([room.id]);
    const ended = (await h.request('GET', `${base}${full.id}/`)).json();
    expect(ended.end_date).toBe(new Date(clock).toISOString());
    expect(ended.responses_limit).toBeNull();
    const flag = (
      await h.request(
        'GET',
        `/api/projects/${h.boot.project_id}/feature_flags/${full.internal_targeting_flag.id}/`,
      )
    ).json();
    expect(flag.active).toBe(false);
    expect((await h.request('GET', `${base}${room.id}/`)).json().end_date).toBeNull();
  });

  it('a recurring survey moves through its iterations, with the iteration in its flag, then ends', async () => {
    const start = clock;
    const s = (
      await h.request('POST', base, {
        body: {
          name: 'Quarterly',
          type: 'popover',
          schedule: 'recurring',
          questions: [{ type: 'open', question: 'How are we doing?' }],
          start_date: new Date(start).toISOString(),
          iteration_count: 3,
          iteration_frequency_days: 10,
        },
      })
    ).json();
    const day = 86_400_000;
    expect(s.iteration_start_dates).toEqual([0, 10, 20].map((d) => new Date(start + d * day).toISOString()));
    const at = async (days: number) => {
      clock = start + days * day;
      return (await sdk()).surveys.find((x) => x.id === s.id);
    };
    expect((await at(0))?.current_iteration).toBe(1);
    expect((await at(12))?.current_iteration).toBe(2);
    const third = await at(25);
    expect(third?.current_iteration).toBe(3);
    expect(third?.current_iteration_start_date).toBe(new Date(start + 20 * day).toISOString());
    const got = (await h.request('GET', `${base}${s.id}/`)).json();
    expect(got.current_iteration).toBe(3);
    const flag = (
      await h.request(
        'GET',
        `/api/projects/${h.boot.project_id}/feature_flags/${s.internal_targeting_flag.id}/`,
      )
    ).json();
    expect(JSON.stringify(flag.filters)).toContain(`$survey_responded/${s.id}/3`);
    // Someone who answered iteration 3 no longer gets the survey; someone who answered iteration 2 does.
    const flags = async (props: Record<string, unknown>) =>
      (
        await h.app.inject({
          method: 'POST',
          url: '/flags/?v=2',
          payload: { token: h.boot.project_api_key, distinct_id: randomUUID(), person_properties: props },
        })
      ).json().flags[flag.key]?.enabled;
    expect(await flags({ [`$survey_responded/${s.id}/3`]: true })).toBe(false);
    expect(await flags({ [`$survey_responded/${s.id}/2`]: true })).toBe(true);
    // After the last iteration the survey ends.
    expect(await at(31)).toBeUndefined();
    expect((await h.request('GET', `${base}${s.id}/`)).json().end_date).not.toBeNull();
  });
});
