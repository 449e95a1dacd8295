import { Type } from 'typebox';
import type { FlagCache } from '../domain/flags/cache.js';
import { scope } from '../domain/scopes.js';
import { questionSummaries, responsesCount, surveyStats } from '../domain/surveys/stats.js';
import { getSurvey } from '../domain/surveys/surveys.js';
import { projectAccessOf } from '../server/auth.js';
import type { ApiPlugin } from './context.js';
import { Nullable, ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';
import { SurveyIdParams } from './schemas/surveys.js';

const tags = ['surveys'];
const read = scope('survey', 'read');

const EventStats = Type.Object({
  total_count: Type.Integer(),
  unique_persons: Type.Integer(),
  first_seen: Nullable(Type.String()),
  last_seen: Nullable(Type.String()),
});
const Stats = Type.Object({
  stats: Type.Object({
    'survey shown': EventStats,
    'survey dismissed': EventStats,
    'survey sent': EventStats,
  }),
  rates: Type.Object({
    response_rate: Type.Number(),
    dismissal_rate: Type.Number(),
    unique_users_response_rate: Type.Number(),
    unique_users_dismissal_rate: Type.Number(),
  }),
});
const Range = Type.Object({
  date_from: Type.Optional(Type.String({ maxLength: 64 })),
  date_to: Type.Optional(Type.String({ maxLength: 64 })),
});
const Summary = Type.Object({
  responses: Type.Integer(),
  partial: Type.Boolean({ description: 'More responses than the summary reads (the newest are read)' }),
  questions: Type.Array(Type.Object({}, { additionalProperties: true })),
});

/** Survey results: PostHog's stats (one survey, all of them), responses_count, per-question summary. */
export const surveyStatsRoutes: ApiPlugin<{ flags: FlagCache }> = async (app, { deps, flags }) => {
  for (const prefix of PROJECT_PREFIXES) {
    app.get(
      `${prefix}surveys/stats/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "Shown, dismissed and sent counts and rates over all the project's surveys",
          params: ProjectIdParams,
          querystring: Range,
          response: { 200: Stats },
        },
      },
      async (request) => surveyStats(deps, projectAccessOf(request), null, request.query),
    );
    app.get(
      `${prefix}surveys/responses_count/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: '`survey sent` events per survey id',
          params: ProjectIdParams,
          response: { 200: Type.Record(Type.String(), Type.Integer()) },
        },
      },
      async (request) => responsesCount(deps, projectAccessOf(request)),
    );
    app.get(
      `${prefix}surveys/:id/stats/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: "One survey's shown, dismissed and sent counts and rates",
          params: SurveyIdParams,
          querystring: Range,
          response: { 200: Stats },
        },
      },
      async (request) => {
        const access = projectAccessOf(request);
        const survey = await getSurvey({ ...deps, flags }, access, request.params.id);
        return surveyStats(deps, access, survey.id, request.query);
      },
    );
    app.get(
      `${prefix}surveys/:id/summary/`,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Per question: counts per choice, rating distribution and NPS, open answers (Burrow)',
          params: SurveyIdParams,
          response: { 200: Summary },
        },
      },
      async (request) => {
        const access = projectAccessOf(request);
        const survey = await getSurvey({ ...deps, flags }, access, request.params.id);
        return questionSummaries(deps, access, survey);
      },
    );
  }
};
