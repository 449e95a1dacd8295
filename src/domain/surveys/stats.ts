import { validationError } from '../../errors.js';
import type { SurveyRecord } from '../../store/meta/surveys.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { runResourceQuery } from '../persons/hogql.js';

/** The events posthog-js sends about a survey, each with `$survey_id`. */
export const SURVEY_EVENTS = ['survey shown', 'survey dismissed', 'survey sent'] as const;
type SurveyEvent = (typeof SURVEY_EVENTS)[number];

export interface EventStats {
  total_count: number;
  unique_persons: number;
  first_seen: string | null;
  last_seen: string | null;
}

export interface StatsRange {
  date_from?: string | undefined;
  date_to?: string | undefined;
}

function bound(v: string | undefined, attr: string): string | null {
  if (v === undefined || v === '') return null;
  const t = Date.parse(v);
  if (v.length > 64 || Number.isNaN(t))
    throw validationError(`Enter a valid date/time (ISO 8601): ${attr}.`, attr);
  return new Date(t).toISOString().replace('T', ' ').replace('Z', '');
}

const iso = (v: unknown) =>
  v === null || v === undefined ? null : `${String(v).replace(' ', 'T').slice(0, 19)}Z`;
const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10000) / 100);

/**
 * PostHog's survey stats: per event, how many and how many people, and the response and dismissal
 * rates over the people and events that saw a survey. One survey, or (`surveyId` null) all of the
 * project's.
 */
export async function surveyStats(
  deps: Deps,
  access: ProjectAccess,
  surveyId: string | null,
  range: StatsRange,
) {
  const from = bound(range.date_from, 'date_from');
  const to = bound(range.date_to, 'date_to');
  const where = [
    "event IN ('survey shown', 'survey dismissed', 'survey sent')",
    surveyId === null ? null : 'properties.$survey_id = {survey}',
    from === null ? null : "timestamp >= toDateTime64({from}, 6, 'UTC')",
    to === null ? null : "timestamp <= toDateTime64({to}, 6, 'UTC')",
  ].filter(Boolean);
  const rows = await runResourceQuery(
    deps,
    access.team,
    `SELECT event, count(), count(DISTINCT person_id), min(timestamp), max(timestamp) FROM events WHERE ${where.join(' AND ')} GROUP BY event`,
    { values: { survey: surveyId, from, to } },
  );
  const stats = Object.fromEntries(
    SURVEY_EVENTS.map((e) => [
      e,
      { total_count: 0, unique_persons: 0, first_seen: null, last_seen: null } as EventStats,
    ]),
  ) as Record<SurveyEvent, EventStats>;
  for (const [event, total, unique, first, last] of rows) {
    stats[event as SurveyEvent] = {
      total_count: Number(total),
      unique_persons: Number(unique),
      first_seen: iso(first),
      last_seen: iso(last),
    };
  }
  const shown = stats['survey shown'];
  const sent = stats['survey sent'];
  const dismissed = stats['survey dismissed'];
  return {
    stats,
    rates: {
      response_rate: pct(sent.total_count, shown.total_count),
      dismissal_rate: pct(dismissed.total_count, shown.total_count),
      unique_users_response_rate: pct(sent.unique_persons, shown.unique_persons),
      unique_users_dismissal_rate: pct(dismissed.unique_persons, shown.unique_persons),
    },
  };
}

/** `survey sent` events per survey id: the list's `responses_count`. */
export async function responsesCount(deps: Deps, access: ProjectAccess): Promise<Record<string, number>> {
  const rows = await runResourceQuery(
    deps,
    access.team,
    "SELECT properties.$survey_id AS survey, count() FROM events WHERE event = 'survey sent' AND notEmpty(toString(properties.$survey_id)) GROUP BY survey",
  );
  return Object.fromEntries(rows.map(([id, n]) => [String(id), Number(n)]));
}

/** How many answers the summary reads (the newest); beyond that the summary says it is partial. */
export const SUMMARY_LIMIT = 10_000;

/** One question's answer in a `survey sent` event: by question id, else the legacy index keys. */
export function answerOf(props: Record<string, unknown>, question: Record<string, unknown>, index: number) {
  const byId = props[`$survey_response_${String(question.id)}`];
  if (byId !== undefined) return byId;
  return index === 0
    ? (props.$survey_response ?? props.$survey_response_0)
    : props[`$survey_response_${index}`];
}

type Summary =
  | { type: 'open'; answers: string[] }
  | { type: 'rating'; distribution: Record<string, number>; nps: number | null }
  | { type: 'single_choice' | 'multiple_choice'; counts: Record<string, number> }
  | { type: 'link'; clicked: number };

/**
 * Per question: counts per choice, the rating distribution with the NPS score of a 0-10 scale
 * (promoters 9-10 minus detractors 0-6, in percent), the open answers, link clicks. A response
 * resent as it was completed (partial responses share `$survey_submission_id`) counts once.
 */
export async function questionSummaries(deps: Deps, access: ProjectAccess, survey: SurveyRecord) {
  const rows = await runResourceQuery(
    deps,
    access.team,
    "SELECT properties FROM events WHERE event = 'survey sent' AND properties.$survey_id = {survey} ORDER BY timestamp DESC LIMIT {limit}",
    { values: { survey: survey.id, limit: SUMMARY_LIMIT + 1 } },
  );
  const partial = rows.length > SUMMARY_LIMIT;
  const latest = new Map<string, Record<string, unknown>>();
  rows.slice(0, SUMMARY_LIMIT).forEach(([raw], i) => {
    const props = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Record<string, unknown>;
    const key = typeof props.$survey_submission_id === 'string' ? props.$survey_submission_id : `#${i}`;
    if (!latest.has(key)) latest.set(key, props);
  });
  const responses = [...latest.values()];
  const questions = survey.questions.map((q, index): { id: unknown; question: unknown } & Summary => {
    const answers = responses
      .map((p) => answerOf(p, q, index))
      .filter((a) => a !== undefined && a !== null && a !== '');
    const head = { id: q.id, question: q.question };
    if (q.type === 'rating') {
      const distribution: Record<string, number> = {};
      for (const a of answers) distribution[String(a)] = (distribution[String(a)] ?? 0) + 1;
      const scores = answers.map(Number).filter((n) => Number.isFinite(n));
      const nps =
        q.scale === 10 && scores.length
          ? Math.round(
              ((scores.filter((n) => n >= 9).length - scores.filter((n) => n <= 6).length) / scores.length) *
                100,
            )
          : null;
      return { ...head, type: 'rating', distribution, nps };
    }
    if (q.type === 'single_choice' || q.type === 'multiple_choice') {
      const counts: Record<string, number> = {};
      for (const a of answers)
        for (const choice of Array.isArray(a) ? a : [a])
          counts[String(choice)] = (counts[String(choice)] ?? 0) + 1;
      return { ...head, type: q.type, counts };
    }
    if (q.type === 'link') return { ...head, type: 'link', clicked: answers.length };
    return { ...head, type: 'open', answers: answers.map(String).slice(0, 1000) };
  });
  return { responses: responses.length, partial, questions };
}
