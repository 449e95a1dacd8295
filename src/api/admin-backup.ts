import { timingSafeEqual } from 'node:crypto';
import { isAbsolute } from 'node:path';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { readOrCreateAdminToken } from '../domain/data-lifecycle/admin-token.js';
import { BackupError, type BackupManifest, backupDataDir } from '../domain/data-lifecycle/backup.js';
import { PUBLIC } from '../domain/scopes.js';
import { ApiError, permissionDenied, validationError } from '../errors.js';
import { REJECT_UNKNOWN_FIELDS } from '../server/validation.js';
import { VERSION } from '../server/version.js';
import type { ApiPlugin } from './context.js';

const Manifest = Type.Object({
  format: Type.Integer(),
  burrow_version: Type.String(),
  created_at: Type.String(),
  database: Type.String(),
  metadata_migrations: Type.Array(Type.String()),
  events_migrations: Type.Array(Type.String()),
  tables: Type.Array(
    Type.Object({ name: Type.String(), parts: Type.Integer(), rows: Type.Number(), bytes: Type.Number() }),
  ),
  journal_files: Type.Integer(),
  seconds: Type.Number(),
});

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * `burrow backup` while the server runs: embedded chDB belongs to this process, so the CLI asks it
 * to make the backup. Local only (loopback, and the token in the data directory that only the
 * server's user can read); not part of PostHog's API, and absent with PostgreSQL or ClickHouse,
 * whose own tools back them up.
 */
export const adminBackupRoutes: ApiPlugin<{
  dataDir: string;
  journalDir: string;
  embedded: boolean;
}> = async (app, { deps, dataDir, journalDir, embedded }) => {
  if (!embedded) return;
  const token = readOrCreateAdminToken(dataDir);
  let running = false;
  app.post(
    '/_admin/backup',
    {
      config: { scope: PUBLIC },
      schema: {
        tags: ['admin'],
        summary:
          'Back up the data directory (the `burrow backup` command; loopback and the local admin token only)',
        body: Type.Object(
          { dir: Type.String({ minLength: 1, maxLength: 4096 }) },
          // `burrow backup` sends `dir` alone: anything else is a caller's mistake worth a 400.
          { additionalProperties: false, ...REJECT_UNKNOWN_FIELDS },
        ),
        response: { 200: Manifest },
      },
    },
    async (request): Promise<BackupManifest> => {
      if (!LOOPBACK.has(request.ip)) throw permissionDenied('Backups are made from this machine only.');
      const given = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
      if (!sameToken(given, token))
        throw new ApiError(
          401,
          'authentication_error',
          'not_authenticated',
          'The local admin token is missing or wrong.',
        );
      // The server's working directory is nobody's business: `burrow backup` sends an absolute path.
      if (!isAbsolute(request.body.dir)) throw validationError('dir must be an absolute path.', 'dir');
      if (running) throw new ApiError(409, 'invalid_request', 'conflict', 'A backup is already under way.');
      running = true;
      try {
        return await backupDataDir(
          {
            dataDir,
            journalDir,
            meta: deps.meta as unknown as Kysely<unknown>,
            events: deps.events,
            version: VERSION,
            now: deps.now,
          },
          request.body.dir,
        );
      } catch (error) {
        if (error instanceof BackupError) throw validationError(error.message, 'dir');
        throw error;
      } finally {
        running = false;
      }
    },
  );
};
