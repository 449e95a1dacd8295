import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { usersById } from '../domain/accounts/users.js';
import type { FlagCache } from '../domain/flags/cache.js';
import type { FlagDeps } from '../domain/flags/flags.js';
import { announceTeamChanged } from '../domain/ingest/teams.js';
import { scope } from '../domain/scopes.js';
import {
  changeSurvey,
  createSurvey,
  getSurvey,
  listProjectSurveys,
  optInOnLaunch,
  removeSurvey,
  surveyFlags,
} from '../domain/surveys/surveys.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery } from '../server/pagination.js';
import type { SurveyRecord } from '../store/meta/surveys.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { Survey, SurveyBody, SurveyIdParams, toSurvey } from './schemas/surveys.js';
import { surveyStatsRoutes } from './surveys-stats.js';

const tags = ['surveys'];

/** `/api/projects/{id}/surveys/` (and the `/api/environments/` copy): PostHog's survey viewset. */
export const surveyRoutes: ApiPlugin<{ flags: FlagCache }> = async (app, options) => {
  const { deps, flags, bus } = options;
  // A launch may switch the project's surveys on; remote config must see it on the next request.
  const launched = async (request: FastifyRequest, survey: SurveyRecord) => {
    if (await optInOnLaunch(deps, projectAccessOf(request), survey))
      await announceTeamChanged(bus, survey.teamId);
    return one(survey);
  };
  const flagDeps: FlagDeps = { ...deps, flags };
  const shape = async (teamId: number, list: SurveyRecord[]) => {
    const [users, flagsById] = await Promise.all([
      usersById(
        deps,
        list.map((s) => s.createdBy),
      ),
      surveyFlags(flagDeps, teamId, list),
    ]);
    return list.map((s) =>
      toSurvey(s, flagsById, s.createdBy === null ? null : (users.get(s.createdBy) ?? null)),
    );
  };
  const one = async (s: SurveyRecord) => (await shape(s.teamId, [s]))[0] as ReturnType<typeof toSurvey>;

  resourceRoutes(app, {
    path: 'surveys/',
    tags,
    read: scope('survey', 'read'),
    write: scope('survey', 'write'),
    item: Survey,
    body: SurveyBody,
    params: SurveyIdParams,
    list: {
      summary: 'Surveys, newest first (`archived` narrows)',
      querystring: Type.Object({
        ...PageQuery.properties,
        archived: Type.Optional(Type.Boolean()),
      }),
      handler: async (request, page) => {
        const access = projectAccessOf(request);
        const data = await listProjectSurveys(flagDeps, access, page, request.query.archived);
        return { count: data.count, results: await shape(access.team.id, data.results) };
      },
    },
    create: {
      summary: 'Create a survey (and its targeting flags)',
      handler: async (request) =>
        launched(
          request,
          await createSurvey(flagDeps, projectAccessOf(request), principalOf(request), request.body),
        ),
    },
    retrieve: {
      summary: 'One survey',
      handler: async (request) => one(await getSurvey(flagDeps, projectAccessOf(request), request.params.id)),
    },
    change: {
      summary: 'Change a survey; a `start_date` launches it, an `end_date` stops it',
      handler: async (request) =>
        launched(
          request,
          await changeSurvey(
            flagDeps,
            projectAccessOf(request),
            principalOf(request),
            request.params.id,
            request.body,
          ),
        ),
    },
    remove: {
      summary: 'Delete a survey and the targeting flags it made',
      handler: (request) =>
        removeSurvey(flagDeps, projectAccessOf(request), principalOf(request), request.params.id),
    },
  });
  await surveyStatsRoutes(app, options);
};
