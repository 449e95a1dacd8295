import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { KeyInput } from '../../src/domain/accounts/personal-api-keys.js';
import { ADMIN, MEMBER } from '../../src/domain/organizations/levels.js';
import type { Harness } from './harness.js';

export const invalid = (detail: string, attr: string | null = null, code = 'invalid_input') => ({
  type: 'validation_error',
  code,
  detail,
  attr,
});

/** Status and body together, so a failure shows both. */
export function expectReply(res: LightMyRequestResponse, status: number, body?: unknown) {
  const actual = res.body === '' ? null : res.json();
  expect({ status: res.statusCode, body: body === undefined ? actual : actual }).toEqual({
    status,
    body: body === undefined ? actual : body,
  });
}

/** A fresh organization with an owner, an admin and a member, each holding a key. */
export async function organization(h: Harness, key?: Partial<KeyInput>) {
  const owner = await h.owner('Acme');
  const orgId = owner.organizationId;
  const admin = await h.user({ organizationId: orgId, level: ADMIN, key });
  const member = await h.user({ organizationId: orgId, level: MEMBER, key });
  return { orgId, owner, admin, member, base: `/api/organizations/${orgId}` };
}
