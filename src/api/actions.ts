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
import { PageQuery } from '../server/pagination.js';
import type { ActionRecord } from '../store/meta/actions.js';
import type { ApiPlugin } from './context.js';
import { resourceRoutes } from './resource-routes.js';
import { Action, ActionBody, ActionIdParams, toAction } from './schemas/actions.js';

const tags = ['actions'];

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

  resourceRoutes(app, {
    path: 'actions/',
    tags,
    read: scope('action', 'read'),
    write: scope('action', 'write'),
    item: Action,
    body: ActionBody,
    params: ActionIdParams,
    list: {
      summary: 'Actions (not deleted), most recently created first',
      querystring: Type.Object({ ...PageQuery.properties }),
      handler: async (request, page) => {
        const data = await listProjectActions(deps, projectAccessOf(request), page);
        return { count: data.count, results: await shape(data.results) };
      },
    },
    create: {
      summary: 'Create an action',
      handler: async (request) =>
        one(await createAction(deps, projectAccessOf(request), principalOf(request), request.body)),
    },
    retrieve: {
      summary: 'One action (deleted ones too)',
      handler: async (request) =>
        one(await getAction(deps, projectAccessOf(request), idOf(request.params.id))),
    },
    change: {
      summary: 'Change an action; `deleted: true` deletes it and `deleted: false` restores it',
      handler: async (request) =>
        one(await changeAction(deps, projectAccessOf(request), idOf(request.params.id), request.body)),
    },
    remove: {
      summary: 'Delete an action (marks it `deleted`; insights naming it keep working)',
      handler: (request) => deleteAction(deps, projectAccessOf(request), idOf(request.params.id)),
    },
  });
};
