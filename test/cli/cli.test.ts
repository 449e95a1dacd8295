import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { openStores } from '../../src/server/runtime.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';
import { runToEnd } from '../helpers/process.js';

describe(`burrow CLI (${backend})`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-cli-'));
  let schema: string | undefined;
  const env = async () => {
    schema ??= await freshSchema();
    return { BURROW_DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema };
  };
  const cli = async (...args: string[]) => runToEnd('src/cli/main.ts', args, await env());
  afterAll(async () => {
    if (schema) await dropSchema(schema);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('bootstraps, then creates, lists and revokes keys that the server honours', async () => {
    const boot = await cli('bootstrap');
    expect(boot.code).toBe(0);
    expect(JSON.parse(boot.output)).toMatchObject({
      project_id: expect.any(Number),
      file: join(dataDir, 'bootstrap.json'),
    });
    expect(JSON.parse((await cli('bootstrap')).output)).toMatchObject({ created: false });

    const created = await cli('keys', 'create', '--label', 'ci', '--scopes', 'project:read,query:read');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.output);
    expect(key.value).toMatch(/^phx_[A-Za-z0-9]{40,}$/);
    expect(key.scopes).toEqual(['project:read', 'query:read']);

    const listed = JSON.parse((await cli('keys', 'list')).output) as Array<Record<string, unknown>>;
    expect(listed.map((k) => k.label)).toContain('ci');
    expect(JSON.stringify(listed)).not.toContain(key.value);

    // The key works against a server on the same store, within its scopes only.
    const config = loadConfig({ ...(await env()), AUTH_CACHE_TTL_MS: '0' });
    const stores = await openStores(config);
    const app = await buildApp({ config, meta: stores.meta, events: stores.events });
    const auth = { authorization: `Bearer ${key.value}` };
    expect((await app.inject({ url: '/api/projects/@current/', headers: auth })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/organizations/', headers: auth })).statusCode).toBe(403);

    const revoked = await cli('keys', 'revoke', key.id);
    expect(revoked.code).toBe(0);
    expect((await app.inject({ url: '/api/projects/@current/', headers: auth })).statusCode).toBe(401);
    await app.close();
    await stores.close();
  });

  it('issues a pending invite a fresh token, which then accepts it', async () => {
    const key = JSON.parse((await cli('keys', 'create', '--label', 'inv', '--scopes', '*')).output).value;
    const config = loadConfig({ ...(await env()), AUTH_CACHE_TTL_MS: '0' });
    const stores = await openStores(config);
    const app = await buildApp({ config, meta: stores.meta, events: stores.events });
    try {
      const invite = await app.inject({
        method: 'POST',
        url: '/api/organizations/@current/invites/',
        headers: { authorization: `Bearer ${key}` },
        payload: { target_email: 'cli-invitee@example.com', send_email: false },
      });
      expect(invite.statusCode).toBe(201);
      const id = invite.json().id;
      const link = await cli('invites', 'link', id);
      expect(link.code).toBe(0);
      const out = JSON.parse(link.output);
      expect(out).toMatchObject({
        invite: id,
        url: expect.stringMatching(new RegExp(`/api/signup/${id}/$`)),
      });
      expect(out.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const accept = (token: string) =>
        app.inject({
          method: 'POST',
          url: `/api/signup/${id}/`,
          payload: { token, first_name: 'Cli', password: 'a long password' },
        });
      expect((await accept('not-it')).json()).toMatchObject({ code: 'invalid_token' });
      expect((await accept(out.token)).statusCode).toBe(201);
      const again = await cli('invites', 'link', id);
      expect(again.code).toBe(2);
      expect(again.output).toContain(`no pending invite ${id}`);
    } finally {
      await app.close();
      await stores.close();
    }
  });

  it('explains bad input and exits non-zero', async () => {
    const badScope = await cli('keys', 'create', '--label', 'x', '--scopes', 'nope:read');
    expect(badScope.code).toBe(1);
    expect(badScope.output).toContain('Invalid scope: nope:read');
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('Usage: npx burrow');
    const missing = await cli('keys', 'revoke', 'doesnotexist');
    expect(missing.code).toBe(1);
    expect(missing.output).toContain('Not found.');
  });

  it('materializes a person property on events: adds the column, fills existing events, lists it', async () => {
    const config = loadConfig(await env());
    const stores = await openStores(config);
    const row = (plan: unknown) => ({
      uuid: randomUUID(),
      event: 'e',
      team_id: 1,
      distinct_id: 'd',
      timestamp: '2025-01-01 00:00:00',
      properties: '{}',
      person_properties: JSON.stringify({ plan }),
    });
    await stores.events.insert('events', [row('pro'), row(7), row(null)]);
    await stores.close();

    const json = (output: string) => JSON.parse(output.slice(output.search(/[[{]/)));
    const added = await cli('materialize', 'person', 'plan');
    expect(added.code).toBe(0);
    expect(json(added.output)).toEqual({
      key: 'plan',
      column: 'pmat_plan',
      added: true,
      materializing: false,
    });
    const again = await cli('materialize', 'person', 'plan');
    expect(json(again.output)).toMatchObject({ added: false });
    const listed = await cli('materialize', 'list');
    expect(json(listed.output)).toEqual([
      { key: 'email', column: 'pmat_email', parts_to_fill: 0 },
      { key: 'plan', column: 'pmat_plan', parts_to_fill: 0 },
    ]);
    const taken = await cli('materialize', 'person', 'pl.an');
    expect(taken.code).toBe(0);
    const clash = await cli('materialize', 'person', 'pl-an');
    expect(clash.code).toBe(1);
    expect(clash.output).toContain(
      'burrow: person property "pl-an" would use the column pmat_pl_an, which already holds "pl.an"',
    );
    const bad = await cli('materialize', 'person', "it's");
    expect(bad.code).toBe(1);
    expect(bad.output).toContain('not allowed');
    expect((await cli('materialize')).code).toBe(2);

    // Existing parts hold the column now, with what the JSON path reads.
    const reopened = await openStores(config);
    try {
      const events = reopened.events;
      const parts = await events.query<{ n: number }>(
        `SELECT count() AS n FROM system.parts_columns WHERE database = {db:String} AND table = 'events' AND active AND column = 'pmat_plan'`,
        { params: { db: events.database } },
      );
      expect(Number(parts[0]?.n)).toBeGreaterThan(0);
      const values = await events.query<{ v: string | null }>(
        `SELECT pmat_plan AS v FROM ${events.table('events')} ORDER BY v`,
      );
      expect(values.map((r) => r.v)).toEqual(['7', 'pro', null]);
    } finally {
      await reopened.close();
    }
  }, 120_000);
});
