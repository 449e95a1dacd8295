import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventRow, insertEvents } from '../helpers/events-insert.js';
import { backend, type Harness, startHarness } from '../helpers/harness.js';

/** Results from the events posthog-js sends: stats, responses_count, the per-question summary. */
describe(`survey results (${backend})`, () => {
  let h: Harness;
  let base: string;
  let survey: { id: string; questions: Array<{ id: string }> };
  let other: { id: string };
  beforeAll(async () => {
    h = await startHarness();
    base = `/api/projects/${h.boot.project_id}/surveys/`;
    survey = (
      await h.request('POST', base, {
        body: {
          name: 'NPS',
          type: 'popover',
          questions: [
            { type: 'rating', question: 'Recommend?', scale: 10 },
            { type: 'single_choice', question: 'Plan?', choices: ['Free', 'Pro'] },
            { type: 'multiple_choice', question: 'Uses?', choices: ['A', 'B', 'C'] },
            { type: 'open', question: 'Why?' },
          ],
        },
      })
    ).json();
    other = (
      await h.request('POST', base, { body: { name: 'Other', type: 'popover', questions: [] } })
    ).json();
    const [rating, plan, uses, why] = survey.questions.map((q) => `$survey_response_${q.id}`) as [
      string,
      string,
      string,
      string,
    ];
    const person = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    let t = 0;
    const row = (
      event: string,
      n: number,
      props: Record<string, unknown>,
      surveyId = survey.id,
    ): EventRow => ({
      uuid: randomUUID(),
      event,
      team_id: h.boot.project_id,
      distinct_id: `user-${n}`,
      person_id: person(n),
      timestamp: `2026-11-20 10:00:${String(t++).padStart(2, '0')}.000000`,
      properties: JSON.stringify({ $survey_id: surveyId, ...props }),
    });
    await insertEvents(h.stores.events, [
      row('survey shown', 1, {}),
      row('survey shown', 2, {}),
      row('survey shown', 3, {}),
      row('survey shown', 3, {}),
      row('survey dismissed', 3, {}),
      // A partial response, then the completed one with the same submission id: counted once.
      row('survey sent', 1, { [rating]: 10, $survey_submission_id: 's1' }),
      row('survey sent', 1, {
        [rating]: 10,
        [plan]: 'Pro',
        [uses]: ['A', 'C'],
        [why]: 'fast',
        $survey_submission_id: 's1',
      }),
      // Legacy keys: the first question as $survey_response, the second by index.
      row('survey sent', 2, { $survey_response: '3', $survey_response_1: 'Free' }),
      row('survey sent', 4, {}, other.id),
    ]);
  });
  afterAll(async () => h?.close());

  it("answers one survey's stats and rates", async () => {
    const res = await h.request('GET', `${base}${survey.id}/stats/`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.stats['survey shown']).toMatchObject({ total_count: 4, unique_persons: 3 });
    expect(body.stats['survey dismissed']).toMatchObject({ total_count: 1, unique_persons: 1 });
    expect(body.stats['survey sent']).toMatchObject({ total_count: 3, unique_persons: 2 });
    expect(body.stats['survey shown'].first_seen).toBe('2026-11-20T10:00:00Z');
    expect(body.rates).toEqual({
      response_rate: 75,
      dismissal_rate: 25,
      unique_users_response_rate: 66.67,
      unique_users_dismissal_rate: 33.33,
    });
    const later = (await h.request('GET', `${base}${survey.id}/stats/?date_from=2026-11-21`)).json();
    expect(later.stats['survey shown'].total_count).toBe(0);
    expect((await h.request('GET', `${base}${survey.id}/stats/?date_from=soon`)).statusCode).toBe(400);
  });

  it('answers stats over all surveys and responses_count per survey', async () => {
    const all = (await h.request('GET', `${base}stats/`)).json();
    expect(all.stats['survey sent'].total_count).toBe(4);
    const counts = (await h.request('GET', `${base}responses_count/`)).json();
    expect(counts).toEqual({ [survey.id]: 3, [other.id]: 1 });
  });

  it('summarises each question, reading legacy keys and partial responses once', async () => {
    const res = await h.request('GET', `${base}${survey.id}/summary/`);
    expect(res.statusCode, res.body).toBe(200);
    const { responses, questions } = res.json();
    expect(responses).toBe(2);
    expect(questions[0]).toMatchObject({ type: 'rating', distribution: { 10: 1, 3: 1 }, nps: 0 });
    expect(questions[1]).toMatchObject({ type: 'single_choice', counts: { Pro: 1, Free: 1 } });
    expect(questions[2]).toMatchObject({ type: 'multiple_choice', counts: { A: 1, C: 1 } });
    expect(questions[3]).toMatchObject({ type: 'open', answers: ['fast'] });
  });
});
