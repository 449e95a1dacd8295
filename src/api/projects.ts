import type { FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { projectStorage } from '../domain/data-lifecycle/storage.js';
import { announceTeamChanged } from '../domain/ingest/teams.js';
import {
  createProject,
  deleteProject,
  listProjects,
  updateProject,
} from '../domain/organizations/projects.js';
import { scope } from '../domain/scopes.js';
import { organizationAccessOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import { REJECT_UNKNOWN_FIELDS } from '../server/validation.js';
import type { ApiPlugin } from './context.js';
import { OrganizationIdParams, ProjectIdParams } from './schemas/common.js';
import { Team, TeamInput, toTeam } from './schemas/teams.js';

const tags = ['projects'];
const CreateBody = Type.Object(
  { ...TeamInput.properties, name: Type.String({ maxLength: 200 }) },
  { additionalProperties: false, ...REJECT_UNKNOWN_FIELDS },
);

/** Burrow has one environment per project, so both path families name the same object. */
const PREFIXES = ['/api/projects/:project_id/', '/api/environments/:project_id/'];

const Storage = Type.Object({
  tables: Type.Array(
    Type.Object({ table: Type.String(), rows: Type.Number(), estimated_bytes: Type.Number() }),
  ),
  estimated_bytes: Type.Number(),
  oldest_event: Type.Union([Type.String(), Type.Null()]),
});

export const projectRoutes: ApiPlugin = async (app, { deps, bus }) => {
  const list = async (request: FastifyRequest<{ Querystring: Static<typeof PageQuery> }>) => {
    const page = pageOf(request.query);
    const data = await listProjects(deps, organizationAccessOf(request), page);
    return paginate(request, page, { count: data.count, results: data.results.map(toTeam) });
  };
  const listSchema = { tags, querystring: PageQuery, response: { 200: Paginated(Team) } };

  app.get(
    '/api/organizations/:organization_id/projects/',
    {
      config: { scope: scope('project', 'read') },
      schema: { ...listSchema, summary: "An organization's projects", params: OrganizationIdParams },
    },
    list,
  );

  app.get(
    '/api/projects/',
    {
      config: { scope: scope('project', 'read'), currentOrganization: true },
      schema: { ...listSchema, summary: "Projects of the caller's current organization" },
    },
    list,
  );

  app.post(
    '/api/organizations/:organization_id/projects/',
    {
      config: { scope: scope('project', 'write') },
      schema: {
        tags,
        summary: 'Create a project with its own phc_ token (admin)',
        params: OrganizationIdParams,
        body: CreateBody,
        response: { 201: Team },
      },
    },
    async (request, reply) => {
      const team = await createProject(deps, organizationAccessOf(request), request.body);
      return reply.code(201).send(toTeam(team));
    },
  );

  for (const path of PREFIXES) {
    app.get(
      path,
      {
        config: { scope: scope('project', 'read') },
        schema: { tags, summary: 'Retrieve a project', params: ProjectIdParams, response: { 200: Team } },
      },
      async (request) => toTeam(projectAccessOf(request).team),
    );

    app.patch(
      path,
      {
        config: { scope: scope('project', 'write') },
        schema: {
          tags,
          summary: 'Update a project',
          params: ProjectIdParams,
          body: TeamInput,
          response: { 200: Team },
        },
      },
      async (request) => {
        const team = toTeam(await updateProject(deps, projectAccessOf(request), request.body));
        // Capture, /flags and /array/{token}/config read settings through a per-node cache.
        await announceTeamChanged(bus, team.id);
        return team;
      },
    );

    app.get(
      `${path}storage/`,
      {
        config: { scope: scope('project', 'read') },
        schema: {
          tags,
          summary: "The disk the project's data uses, per table (Burrow's own; estimated by row share)",
          params: ProjectIdParams,
          response: { 200: Storage },
        },
      },
      async (request) => projectStorage(deps.events, projectAccessOf(request).team.id),
    );

    app.delete(
      path,
      {
        config: { scope: scope('project', 'write') },
        schema: {
          tags,
          summary: 'Delete a project (admin)',
          params: ProjectIdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        const access = projectAccessOf(request);
        await deleteProject(deps, access);
        await announceTeamChanged(bus, access.team.id);
        return reply.code(204).send(null);
      },
    );
  }
};
