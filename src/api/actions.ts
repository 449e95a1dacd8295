import { Type } from 'typebox';
import {
  actionCreators,
  changeAction,
  createAction,
  deleteAction,
  getAction,
  listProjectActions,
} from '../domain/actions/actions.js';
import { scope } from '../domain/scopes.js';
import { notFound } from '../errors.js';
import { principalOf, projectAccessOf } from '../server/auth.js';
import { PageQuery, Paginated, pageOf, paginate } from '../server/pagination.js';
import type { ActionRecord } from '../store/meta/actions.js';
import type { ApiPlugin } from './context.js';
import { Action, ActionBody, ActionIdParams, toAction } from './schemas/actions.js';
import { ProjectIdParams } from './schemas/common.js';
import { PROJECT_PREFIXES } from './schemas/recordings.js';

const tags = ['actions'];
const read = scope('action', 'read');
const write = scope('action', 'write');

/** Ids are integers; anything else names no action (404, as a malformed id elsewhere). */
const idOf = (raw: string) => {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) throw notFound();
  return Number(raw);
};

export const actionRoutes: ApiPlugin = async (app, { deps }) => {
  // created_by is shown as the user; a page usually has a handful of distinct creators.
  const shape = async (actions: ActionRecord[]) => {
    const creators = await actionCreators(deps, actions);
    return actions.map((a) => toAction(a, a.createdBy === null ? null : (creators.get(a.createdBy) ?? null)));
  };
  const one = async (a: ActionRecord) => (await shape([a]))[0] as ReturnType<typeof toAction>;

  for (const prefix of PROJECT_PREFIXES) {
    const base = `${prefix}actions/`;
    const item = `${base}:id/`;

    app.get(
      base,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'Actions (not deleted), most recently created first',
          params: ProjectIdParams,
          querystring: Type.Object({ ...PageQuery.properties }),
          response: { 200: Paginated(Action) },
        },
      },
      async (request) => {
        const page = pageOf(request.query);
        const data = await listProjectActions(deps, projectAccessOf(request), page);
        return paginate(request, page, { count: data.count, results: await shape(data.results) });
      },
    );

    app.post(
      base,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Create an action',
          params: ProjectIdParams,
          body: ActionBody,
          response: { 201: Action },
        },
      },
      async (request, reply) => {
        const created = await createAction(
          deps,
          projectAccessOf(request),
          principalOf(request),
          request.body,
        );
        return reply.code(201).send(await one(created));
      },
    );

    app.get(
      item,
      {
        config: { scope: read },
        schema: {
          tags,
          summary: 'One action (deleted ones too)',
          params: ActionIdParams,
          response: { 200: Action },
        },
      },
      async (request) => one(await getAction(deps, projectAccessOf(request), idOf(request.params.id))),
    );

    for (const method of ['patch', 'put'] as const) {
      app[method](
        item,
        {
          config: { scope: write },
          schema: {
            tags,
            summary: 'Change an action; `deleted: true` deletes it and `deleted: false` restores it',
            params: ActionIdParams,
            body: ActionBody,
            response: { 200: Action },
          },
        },
        async (request) =>
          one(await changeAction(deps, projectAccessOf(request), idOf(request.params.id), request.body)),
      );
    }

    app.delete(
      item,
      {
        config: { scope: write },
        schema: {
          tags,
          summary: 'Delete an action (marks it `deleted`; insights naming it keep working)',
          params: ActionIdParams,
          response: { 204: Type.Null() },
        },
      },
      async (request, reply) => {
        await deleteAction(deps, projectAccessOf(request), idOf(request.params.id));
        return reply.code(204).send(null);
      },
    );
  }
};
