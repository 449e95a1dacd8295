import { Type } from 'typebox';
import {
  createKey,
  deleteUserKey,
  getKey,
  type KeyWithValue,
  listKeys,
  rollKey,
  updateUserKey,
} from '../domain/accounts/personal-api-keys.js';
import { AUTHENTICATED, INTERNAL } from '../domain/scopes.js';
import { principalOf } from '../server/auth.js';
import type { PersonalApiKeyRecord } from '../store/meta/personal-api-keys.js';
import type { ApiPlugin } from './context.js';
import { DateTime, Nullable, NullableDateTime } from './schemas/common.js';

const tags = ['personal_api_keys'];

const Key = Type.Object({
  id: Type.String(),
  label: Type.String(),
  value: Nullable(Type.String(), { description: 'The secret; only in the create and roll responses' }),
  mask_value: Type.String(),
  created_at: DateTime,
  last_used_at: NullableDateTime,
  last_rolled_at: NullableDateTime,
  user_id: Type.Integer(),
  scopes: Type.Array(Type.String()),
  // PostHog's serializer answers lists, [] when unrestricted; its agent toolkit refuses null.
  scoped_teams: Type.Array(Type.Integer()),
  scoped_organizations: Type.Array(Type.String()),
});

const KeyFields = {
  label: Type.String({ maxLength: 40 }),
  scopes: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
  scoped_teams: Type.Optional(Nullable(Type.Array(Type.Integer(), { maxItems: 1000 }))),
  scoped_organizations: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 1000 }))),
};
const CreateBody = Type.Object(KeyFields, { additionalProperties: false });
const UpdateBody = Type.Object(
  { ...KeyFields, label: Type.Optional(KeyFields.label), scopes: Type.Optional(KeyFields.scopes) },
  { additionalProperties: false },
);
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

function toKey(key: PersonalApiKeyRecord | KeyWithValue) {
  return {
    id: key.id,
    label: key.label,
    value: 'value' in key ? key.value : null,
    mask_value: key.maskValue,
    created_at: key.createdAt,
    last_used_at: key.lastUsedAt,
    last_rolled_at: key.lastRolledAt,
    user_id: key.userId,
    scopes: key.scopes.length > 0 ? key.scopes : ['*'],
    scoped_teams: key.scopedTeams ?? [],
    scoped_organizations: key.scopedOrganizations ?? [],
  };
}

/**
 * PostHog lets personal keys only read themselves here and manages keys from a login session. Burrow
 * accepts the session cookie of `POST /api/login/` on these routes, and also a full-access (`*`)
 * key, so keys can be managed without a browser; the CLI works without either.
 */
export const personalApiKeyRoutes: ApiPlugin = async (app, { deps, authenticator }) => {
  app.get(
    '/api/personal_api_keys/',
    {
      config: { scope: INTERNAL },
      schema: {
        tags,
        summary: "The caller's keys, newest first (not paginated, as in PostHog)",
        response: { 200: Type.Array(Key) },
      },
    },
    async (request) => (await listKeys(deps, principalOf(request))).map(toKey),
  );

  app.post(
    '/api/personal_api_keys/',
    {
      config: { scope: INTERNAL },
      schema: {
        tags,
        summary: 'Mint a key; the response is the only time its value is shown',
        body: CreateBody,
        response: { 201: Key },
      },
    },
    async (request, reply) =>
      reply.code(201).send(toKey(await createKey(deps, principalOf(request), request.body))),
  );

  app.get(
    '/api/personal_api_keys/:id/',
    {
      config: { scope: AUTHENTICATED },
      schema: {
        tags,
        summary: 'One key; `@current` is the calling key',
        params: IdParams,
        response: { 200: Key },
      },
    },
    async (request) => toKey(await getKey(deps, principalOf(request), request.params.id)),
  );

  app.patch(
    '/api/personal_api_keys/:id/',
    {
      config: { scope: INTERNAL },
      schema: {
        tags,
        summary: "Change a key's label, scopes or restrictions",
        params: IdParams,
        body: UpdateBody,
        response: { 200: Key },
      },
    },
    async (request) => {
      const { previous, updated } = await updateUserKey(
        deps,
        principalOf(request),
        request.params.id,
        request.body,
      );
      authenticator.invalidate({ secureValue: previous.secureValue });
      return toKey(updated);
    },
  );

  app.post(
    '/api/personal_api_keys/:id/roll/',
    {
      config: { scope: INTERNAL },
      schema: {
        tags,
        summary: 'Replace the secret; the old value stops working at once',
        params: IdParams,
        response: { 200: Key },
      },
    },
    async (request) => {
      const { previous, updated } = await rollKey(deps, principalOf(request), request.params.id);
      authenticator.invalidate({ secureValue: previous.secureValue });
      return toKey(updated);
    },
  );

  app.delete(
    '/api/personal_api_keys/:id/',
    {
      config: { scope: INTERNAL },
      schema: { tags, summary: 'Revoke a key', params: IdParams, response: { 204: Type.Null() } },
    },
    async (request, reply) => {
      const key = await deleteUserKey(deps, principalOf(request), request.params.id);
      authenticator.invalidate({ secureValue: key.secureValue });
      return reply.code(204).send(null);
    },
  );
};
