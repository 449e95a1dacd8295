import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildApp } from '../../src/server/app.js';
import { bootstrapInstallation, openStores } from '../../src/server/runtime.js';
import { countOrganizations } from '../../src/store/meta/organizations.js';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';

describe(`bootstrap (${backend})`, () => {
  const dirs: string[] = [];
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas) await dropSchema(s);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function installation(extra: Record<string, string> = {}) {
    const dataDir = mkdtempSync(join(tmpdir(), 'burrow-boot-'));
    dirs.push(dataDir);
    const schema = await freshSchema();
    if (schema) schemas.push(schema);
    const env = {
      BURROW_DATA_DIR: dataDir,
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
      ...extra,
    };
    return { dataDir, env };
  }

  /** One start of the server's start-up path, without listening; returns what it logged. */
  async function start(env: Record<string, string | undefined>) {
    const config = loadConfig(env);
    const logged: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
    const stores = await openStores(config);
    await bootstrapInstallation(config, stores, log);
    const app = await buildApp({ config, meta: stores.meta, events: stores.events });
    const close = async () => {
      await app.close();
      await stores.close();
    };
    return { config, stores, app, logged, close };
  }

  it('creates organization, project, owner and a working full-access key, once', async () => {
    const { dataDir, env } = await installation();
    const first = await start(env);
    const file = join(dataDir, 'bootstrap.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const boot = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(boot).sort()).toEqual([
      'organization_id',
      'personal_api_key',
      'project_api_key',
      'project_id',
      'user_email',
    ]);
    expect(first.logged.join('')).toContain(file);

    const me = await first.app.inject({
      url: '/api/users/@me/',
      headers: { authorization: `Bearer ${boot.personal_api_key}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({
      email: 'admin@burrow.local',
      organization: { id: boot.organization_id, membership_level: 15 },
      team: { id: boot.project_id, api_token: boot.project_api_key },
    });
    const key = await first.app.inject({
      url: '/api/personal_api_keys/@current/',
      headers: { authorization: `Bearer ${boot.personal_api_key}` },
    });
    expect(key.json().scopes).toEqual(['*']);
    await first.close();

    const second = await start(env);
    expect(await countOrganizations(second.stores.meta.db)).toBe(1);
    expect(second.logged.join('')).not.toContain('first start');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(boot);
    await second.close();
  });

  it('gives the first key the value of BURROW_ADMIN_API_KEY, and re-adds it later if missing', async () => {
    const adminKey = `phx_${'a1B2'.repeat(10)}`;
    const { dataDir, env } = await installation({ BURROW_ADMIN_API_KEY: adminKey });
    const first = await start(env);
    expect(JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).personal_api_key).toBe(adminKey);
    const del = await first.app.inject({
      method: 'DELETE',
      url: '/api/personal_api_keys/@current/',
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(del.statusCode).toBe(204);
    await first.close();

    const second = await start(env);
    const me = await second.app.inject({
      url: '/api/users/@me/',
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(me.statusCode).toBe(200);
    expect(await countOrganizations(second.stores.meta.db)).toBe(1);
    await second.close();
  });

  it('rejects a malformed BURROW_ADMIN_API_KEY before touching any store', () => {
    expect(() => loadConfig({ BURROW_ADMIN_API_KEY: 'not-a-key' })).toThrow(ConfigError);
    expect(() => loadConfig({ BURROW_ADMIN_API_KEY: 'phx_short' })).toThrow(/BURROW_ADMIN_API_KEY/);
  });
});
