import '../threadpool.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { ConfigError, loadConfig } from '../config.js';
import { setPasswordByEmail } from '../domain/accounts/password-change.js';
import { createKey, deleteUserKey, listKeys } from '../domain/accounts/personal-api-keys.js';
import { readOrCreateAdminToken } from '../domain/data-lifecycle/admin-token.js';
import { BackupError, backupDataDir, checkBackupTarget } from '../domain/data-lifecycle/backup.js';
import { restoreDataDir } from '../domain/data-lifecycle/restore.js';
import type { MetaDeps } from '../domain/deps.js';
import { bootstrap } from '../domain/organizations/bootstrap.js';
import { reissueInviteToken } from '../domain/organizations/invite-token.js';
import { signupUrl } from '../domain/organizations/mail.js';
import { ApiError } from '../errors.js';
import { writeBootstrapFile } from '../server/bootstrap-file.js';
import { eventsStoreOptions } from '../server/runtime.js';
import { VERSION } from '../server/version.js';
import { migrateEvents } from '../store/events/migrate.js';
import { materializePersonProperties, pendingMaterializations } from '../store/events/person-columns.js';
import { openEventsStore } from '../store/events/store.js';
import { openMetaStore } from '../store/meta/db.js';
import { findTeam } from '../store/meta/teams.js';
import { findUserByEmail } from '../store/meta/users.js';
import { NewerDataError } from '../store/shared/newer-data.js';
import { formatDoctor, runDoctor } from './doctor.js';
import { checkReachable, runImport, UnreachableError } from './import.js';
import { createProgress } from './import-progress.js';
import { countRows } from './import-source.js';
import { readPassword } from './read-password.js';
import { runningServer } from './running-server.js';

const USAGE = `Usage: npx burrow <command> [options]

Works directly on the data directory (or DATABASE_URL); the server need not be running.

Commands:
  keys create --label <text> --scopes <s1,s2|*> [--email <user>] [--scoped-teams 1,2] [--scoped-organizations <uuid,...>]
  keys list [--email <user>]
  keys revoke <id> [--email <user>]
  import <file.jsonl|file.csv> [--project <id> | --token <phc_...>] [--host <url>]
                     send events through the running server's capture path (/batch/);
                     without --project or --token, the bootstrap project (bootstrap.json)
  password [--email <user>]
                     set a user's password for logging in to the console (asked on a terminal,
                     else read from standard input); ends that user's sessions
  invites link <invite-id>
                     a new token for a pending invite (the old one stops working) and where to
                     post it: for invites sent without email (no SMTP_URL, or send_email false)
  materialize person <key> [--background]
                     give a person property its own column on events (pmat_<key>), which
                     person filters and breakdowns read in the persons-on-events modes; fills
                     existing events, waiting for it unless --background (the server finishes it)
  materialize list   the person property columns and any filling still under way
  migrate            apply the metadata and events stores' migrations and exit
  backup <dir>       a consistent copy of the data directory into a new or empty folder, also
                     while the server runs and captures (embedded stores only)
  restore <dir>      bring a backup back as the data directory (server stopped; the directory
                     that was there is moved aside, never deleted)
  doctor [--json]    check the data directory, stores, disk space, pending migrations and versions,
                     and print what to do; changes nothing (exit code 1 when a check fails)
  bootstrap          create the default organization if the store is empty (writes bootstrap.json)

Options:
  --data-dir <dir>   overrides BURROW_DATA_DIR
  --email <user>     whose keys (default: BURROW_ADMIN_EMAIL, i.e. the bootstrap owner)
`;

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      email: { type: 'string' },
      label: { type: 'string' },
      scopes: { type: 'string' },
      'scoped-teams': { type: 'string' },
      'scoped-organizations': { type: 'string' },
      project: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      background: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  const env = { ...process.env, ...(values['data-dir'] ? { BURROW_DATA_DIR: values['data-dir'] } : {}) };
  const config = loadConfig(env);
  if (command === 'backup') return await backupCommand(sub, config);
  if (command === 'restore') return await restoreCommand(sub, config);
  if (command === 'doctor') {
    const checks = await runDoctor(config);
    if (values.json) print(checks);
    else process.stdout.write(formatDoctor(checks));
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  }
  if (command === 'materialize')
    return await materializeCommand(sub, arg, values.background === true, config);
  const store = await openMetaStore(config);
  const deps: MetaDeps = { meta: store.db, now: () => new Date() };
  try {
    if (command === 'migrate') {
      const events = await openEventsStore({
        ...eventsStoreOptions(config),
        personColumnsRefreshMs: 0,
        migrate: false,
      }).catch((error: unknown) => {
        if (error instanceof NewerDataError || config.clickhouseUrl) throw error;
        throw new CliError(
          `metadata migrated; cannot open the events store in ${config.dataDir} (${(error as Error).message}): a running server holds it (and migrated it when it started)`,
        );
      });
      try {
        print({ applied: store.applied, events_applied: await migrateEvents(events) });
      } finally {
        await events.close();
      }
      return 0;
    }
    if (command === 'bootstrap') {
      const result = await bootstrap(deps, {
        adminEmail: config.adminEmail,
        adminApiKey: config.adminApiKey,
      });
      if (result) print({ ...result, file: writeBootstrapFile(config.dataDir, result) });
      else print({ created: false, detail: 'The store already has an organization.' });
      return 0;
    }
    if (command === 'import') return await importCommand(sub, values, config, store.db);
    if (command === 'password') {
      const email = values.email ?? config.adminEmail;
      const user = await setPasswordByEmail(deps, email, await readPassword());
      print({ email: user.email, password_set: true, login: `http://${config.host}:${config.port}/login` });
      return 0;
    }
    if (command === 'invites' && sub === 'link' && arg) {
      const token = await reissueInviteToken(deps, arg);
      if (!token) throw new UsageError(`no pending invite ${arg}`);
      const base = config.siteUrl ?? `http://127.0.0.1:${config.port}`;
      print({ invite: arg.toLowerCase(), url: signupUrl(base, arg.toLowerCase()), token });
      return 0;
    }
    if (command !== 'keys' || !sub) throw new UsageError(`unknown command: ${positionals.join(' ')}`);
    const email = values.email ?? config.adminEmail;
    const user = await findUserByEmail(store.db, email);
    if (!user) {
      throw new CliError(
        `no user with email ${email} in the data directory ${config.dataDir} (start the server once there to bootstrap, or pass --data-dir)`,
      );
    }
    const principal = { user, key: null };
    if (sub === 'create') {
      const key = await createKey(deps, principal, {
        label: values.label ?? '',
        scopes: list(values.scopes) ?? [],
        scoped_teams: list(values['scoped-teams'])?.map(Number),
        scoped_organizations: list(values['scoped-organizations']),
      });
      print({ id: key.id, label: key.label, value: key.value, scopes: key.scopes, user: user.email });
      return 0;
    }
    if (sub === 'list') {
      print(
        (await listKeys(deps, principal)).map((k) => ({
          id: k.id,
          label: k.label,
          mask_value: k.maskValue,
          scopes: k.scopes,
          created_at: k.createdAt,
          last_used_at: k.lastUsedAt,
        })),
      );
      return 0;
    }
    if (sub === 'revoke' && arg) {
      const key = await deleteUserKey(deps, principal, arg);
      print({ revoked: key.id, label: key.label });
      return 0;
    }
    throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  } finally {
    await store.close();
  }
}

class UsageError extends Error {}

/** A failure to report in one line, without the usage text. */
class CliError extends Error {}

function embeddedOnly(config: ReturnType<typeof loadConfig>, what: string): void {
  if (config.databaseUrl || config.clickhouseUrl)
    throw new CliError(
      `${what} covers the embedded stores only: with DATABASE_URL use pg_dump / pg_restore, with CLICKHOUSE_URL the server's BACKUP / RESTORE (docs/operations.md, "Backups")`,
    );
}

async function backupCommand(
  dir: string | undefined,
  config: ReturnType<typeof loadConfig>,
): Promise<number> {
  if (!dir) throw new UsageError('backup needs a folder');
  embeddedOnly(config, 'burrow backup');
  const target = await checkBackupTarget(dir, config.dataDir).catch((error: unknown) => {
    throw error instanceof BackupError ? new CliError(error.message) : error;
  });
  const server = await runningServer(config);
  if (server) {
    // The server holds embedded chDB: it makes the backup, capture carrying on meanwhile.
    const res = await fetch(`${server}/_admin/backup`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${readOrCreateAdminToken(config.dataDir)}`,
      },
      body: JSON.stringify({ dir: target }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new CliError(`the server refused the backup: ${String(body.detail ?? res.status)}`);
    print({ dir: target, made_by: 'server', ...body });
    return 0;
  }
  const store = await openMetaStore(config);
  try {
    const events = await openEventsStore({ ...eventsStoreOptions(config), personColumnsRefreshMs: 0 });
    try {
      const manifest = await backupDataDir(
        {
          dataDir: config.dataDir,
          journalDir: config.captureJournalDir,
          meta: store.db as unknown as Kysely<unknown>,
          events,
          version: VERSION,
          now: () => new Date(),
        },
        target,
      );
      print({ dir: target, made_by: 'cli', ...manifest });
      return 0;
    } finally {
      await events.close();
    }
  } catch (error) {
    throw error instanceof BackupError ? new CliError(error.message) : error;
  } finally {
    await store.close();
  }
}

async function restoreCommand(
  dir: string | undefined,
  config: ReturnType<typeof loadConfig>,
): Promise<number> {
  if (!dir) throw new UsageError('restore needs a backup folder');
  embeddedOnly(config, 'burrow restore');
  if (await runningServer(config))
    throw new CliError(
      `a server is running on port ${config.port} with this data directory: stop it, then restore`,
    );
  try {
    const result = await restoreDataDir(dir, config.dataDir, config.captureJournalDir, () => new Date());
    print({
      restored_from: result.restored_from,
      data_dir: result.data_dir,
      moved_aside: result.moved_aside,
      backup_created_at: result.backup.created_at,
      burrow_version: result.backup.burrow_version,
    });
    return 0;
  } catch (error) {
    throw error instanceof BackupError ? new CliError(error.message) : error;
  }
}

/** The bootstrap project's token, from bootstrap.json in the data directory. */
function bootstrapToken(dataDir: string): string {
  const path = join(dataDir, 'bootstrap.json');
  if (!existsSync(path)) {
    throw new CliError(
      `no bootstrap.json in the data directory ${dataDir}: start the server once there (npm start), pass --data-dir <dir>, or give --project <id> or --token <phc_...>`,
    );
  }
  const token = (JSON.parse(readFileSync(path, 'utf8')) as { project_api_key?: unknown }).project_api_key;
  if (typeof token !== 'string')
    throw new CliError(`${path} has no project_api_key; give --project or --token`);
  return token;
}

async function importCommand(
  file: string | undefined,
  values: { project?: string; host?: string; token?: string },
  config: ReturnType<typeof loadConfig>,
  db: Awaited<ReturnType<typeof openMetaStore>>['db'],
): Promise<number> {
  if (!file) throw new UsageError('import needs a file');
  if (!existsSync(file)) throw new CliError(`no file ${file}`);
  let token = values.token;
  if (!token && values.project) {
    if (!/^\d+$/.test(values.project)) throw new UsageError('--project needs a project id (a number)');
    const team = await findTeam(db, Number(values.project));
    if (!team) throw new CliError(`no project ${values.project} in the data directory ${config.dataDir}`);
    token = team.apiToken;
  }
  if (!token) token = bootstrapToken(config.dataDir);
  const host = (values.host ?? `http://127.0.0.1:${config.port}`).replace(/\/+$/, '');
  await checkReachable(host);
  const progress = createProgress({
    total: await countRows(file),
    tty: process.stderr.isTTY === true,
    columns: process.stderr.columns,
    write: (text) => process.stderr.write(text),
  });
  const summary = await runImport({
    file,
    host,
    token,
    progress: (done, rejected) => progress.update(done, rejected),
  });
  progress.finish(summary);
  print({ ...summary, rate: Math.round(summary.rate), seconds: Number(summary.seconds.toFixed(2)) });
  return summary.rejected > 0 ? 1 : 0;
}

/**
 * `materialize person <key>` / `materialize list`: person property columns on events. The store
 * opens as the server opens it (so the configured keys are applied too); on embedded chDB the
 * filling runs in this process, hence the wait.
 */
async function materializeCommand(
  sub: string | undefined,
  key: string | undefined,
  background: boolean,
  config: ReturnType<typeof loadConfig>,
): Promise<number> {
  if (sub !== 'list' && !(sub === 'person' && key !== undefined))
    throw new UsageError('materialize needs "person <key>" or "list"');
  const events = await openEventsStore({ ...eventsStoreOptions(config), personColumnsRefreshMs: 0 }).catch(
    (error: unknown) => {
      // Embedded chDB: one process per data directory, and the server holds it while it runs.
      if (config.clickhouseUrl) throw error;
      throw new CliError(
        `cannot open the events store in ${config.dataDir} (${(error as Error).message}); a running server holds it: stop the server first, or add the key to MATERIALIZED_PERSON_PROPERTIES and restart`,
      );
    },
  );
  try {
    if (sub === 'list') {
      const pending = await pendingMaterializations(events);
      print(
        [...events.personColumns.all()].map(([k, column]) => ({
          key: k,
          column,
          parts_to_fill: pending.find((p) => p.column === column)?.parts_to_do ?? 0,
        })),
      );
      return 0;
    }
    let done: Awaited<ReturnType<typeof materializePersonProperties>>;
    try {
      done = await materializePersonProperties(events, [key as string]);
    } catch (error) {
      throw new CliError((error as Error).message);
    }
    const [result] = done;
    if (result?.materializing && !background) {
      for (;;) {
        const left = (await pendingMaterializations(events)).find((p) => p.column === result.column);
        if (!left) break;
        if (left.latest_fail_reason)
          throw new CliError(`filling ${result.column} failed: ${left.latest_fail_reason}`);
        process.stderr.write(`filling ${result.column}: ${left.parts_to_do} parts left\n`);
        await new Promise((r) => setTimeout(r, 1000));
      }
      print({ ...result, materializing: false });
      return 0;
    }
    print(result);
    return 0;
  } finally {
    await events.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ApiError)
      process.stderr.write(`burrow: ${error.attr ? `${error.attr}: ` : ''}${error.detail}\n`);
    else if (
      error instanceof CliError ||
      error instanceof UnreachableError ||
      error instanceof NewerDataError
    )
      process.stderr.write(`burrow: ${error.message}\n`);
    else if (
      error instanceof UsageError ||
      error instanceof ConfigError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      process.stderr.write(`burrow: ${(error as Error).message}\n\n${USAGE}`);
    } else process.stderr.write(`burrow: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(
      error instanceof ApiError ||
        error instanceof CliError ||
        error instanceof UnreachableError ||
        error instanceof NewerDataError
        ? 1
        : 2,
    );
  },
);
