import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { type Config, loadConfig } from '../../src/config.js';
import { createKey, type KeyInput } from '../../src/domain/accounts/personal-api-keys.js';
import type { Deps } from '../../src/domain/deps.js';
import { newUuid } from '../../src/domain/ids.js';
import { type BootstrapResult, bootstrap } from '../../src/domain/organizations/bootstrap.js';
import { MEMBER } from '../../src/domain/organizations/levels.js';
import { createOrganizationFor } from '../../src/domain/organizations/organizations.js';
import { type App, buildApp } from '../../src/server/app.js';
import { openStores, type Stores } from '../../src/server/runtime.js';
import { insertMembership } from '../../src/store/meta/memberships.js';
import { insertUser, type UserRecord } from '../../src/store/meta/users.js';

/** Which metadata backend this run uses: PostgreSQL when DATABASE_URL is set, else SQLite. */
export const backend = process.env.DATABASE_URL ? 'postgres' : 'sqlite';

export interface Harness {
  app: App;
  stores: Stores;
  config: Config;
  deps: Deps;
  boot: BootstrapResult;
  /** The bootstrap owner's full-access key. */
  key: string;
  request(method: string, url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  /** A new user, optionally a member of an organization, with a key of the given scopes. */
  user(options?: {
    email?: string;
    organizationId?: string;
    level?: number;
    key?: Partial<KeyInput>;
  }): Promise<{
    user: UserRecord;
    key: string;
  }>;
  /** A new user who owns a fresh organization (and its first project). */
  owner(name?: string): Promise<{ user: UserRecord; key: string; organizationId: string; projectId: number }>;
  close(): Promise<void>;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

let counter = 0;

/** A private PostgreSQL schema per harness, dropped on close, so runs never see each other. */
export async function freshSchema(): Promise<string | undefined> {
  if (!process.env.DATABASE_URL) return undefined;
  return `burrow_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export async function startHarness(
  env: Record<string, string> = {},
  options: { now?: () => Date } = {},
): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-test-'));
  const schema = env.DATABASE_SCHEMA ?? (await freshSchema());
  const config = loadConfig({
    BURROW_DATA_DIR: dataDir,
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    REDIS_KEY_PREFIX: `burrow-test-${process.pid}-${counter++}:`,
    ...(schema ? { DATABASE_SCHEMA: schema } : {}),
    ...env,
  });
  const stores = await openStores(config);
  const now = options.now ?? (() => new Date());
  const deps: Deps = { meta: stores.meta.db, events: stores.events, now };
  const boot = await bootstrap(deps, { adminEmail: config.adminEmail, adminApiKey: config.adminApiKey });
  if (!boot) throw new Error('harness expected an empty store');
  const app = await buildApp({ config, meta: stores.meta, events: stores.events, bus: stores.bus, now });
  await app.ready();

  const newUser = async (email: string) =>
    insertUser(stores.meta.db, {
      uuid: newUuid(),
      distinctId: newUuid(),
      email,
      firstName: 'Test',
      lastName: 'User',
      passwordHash: null,
      isActive: true,
      isEmailVerified: true,
      currentOrganizationId: null,
      currentTeamId: null,
      createdAt: now().toISOString(),
      lastLogin: null,
    });
  const mint = async (user: UserRecord, input: Partial<KeyInput> = {}) =>
    (await createKey(deps, { user, key: null }, { label: 'test', scopes: ['*'], ...input })).value as string;

  return {
    app,
    stores,
    config,
    deps,
    boot,
    key: boot.personal_api_key,
    request(method, url, opts = {}) {
      const key = opts.key === undefined ? boot.personal_api_key : opts.key;
      const headers: Record<string, string> = {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...opts.headers,
      };
      return app.inject({
        method: method as 'GET',
        url,
        headers,
        ...(opts.body === undefined ? {} : { payload: opts.body as object }),
      });
    },
    async user(opts = {}) {
      const user = await newUser(opts.email ?? `user${counter++}-${Date.now()}@example.com`);
      if (opts.organizationId) {
        await insertMembership(stores.meta.db, {
          id: newUuid(),
          organizationId: opts.organizationId,
          userId: user.id,
          level: opts.level ?? MEMBER,
          joinedAt: now().toISOString(),
          updatedAt: now().toISOString(),
        });
      }
      return { user, key: await mint(user, opts.key) };
    },
    async owner(name = 'Other org') {
      const user = await newUser(`owner${counter++}-${Date.now()}@example.com`);
      const { organization, team } = await createOrganizationFor(
        stores.meta.db,
        user.id,
        name,
        now().toISOString(),
      );
      return { user, key: await mint(user), organizationId: organization.id, projectId: team.id };
    },
    async close() {
      await app.close();
      await stores.close();
      if (schema && process.env.DATABASE_URL) await dropSchema(schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
