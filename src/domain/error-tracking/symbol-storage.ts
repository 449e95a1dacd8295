import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where a presigned POST goes: the URL and the form fields to send before the `file` part. */
export interface UploadTarget {
  url: string;
  fields: Record<string, string>;
}

/**
 * Where symbol sets' bytes live: the data directory, or the S3 bucket of the object storage
 * settings (then posthog-cli uploads to S3 itself, as to PostHog's).
 */
export interface SymbolStorage {
  readonly kind: 'local' | 's3';
  /** The upload target for a pending set (`local`: this server's, authorised by the token). */
  target(teamId: number, id: string, token: string, localUrl: string): UploadTarget;
  write(teamId: number, id: string, data: Buffer): Promise<void>;
  /** The bytes, or undefined when nothing was uploaded. */
  read(teamId: number, id: string): Promise<Buffer | undefined>;
  remove(teamId: number, id: string): Promise<void>;
}

/** PostHog's bound on one symbol set, also the presigned POST's `content-length-range`. */
export const MAX_SYMBOL_SET_BYTES = 100 * 1024 * 1024;
export const missing = (error: unknown) => {
  const e = error as { code?: string; name?: string; $metadata?: { httpStatusCode?: number } };
  return (
    e.code === 'ENOENT' ||
    e.name === 'NoSuchKey' ||
    e.name === 'NotFound' ||
    e.$metadata?.httpStatusCode === 404
  );
};

/** Where a project's uploaded symbol sets are kept in the data directory. */
export const symbolSetPath = (dataDir: string, teamId: number, id: string) =>
  join(dataDir, 'symbol-sets', String(teamId), id);

export function localSymbolStorage(dataDir: string): SymbolStorage {
  return {
    kind: 'local',
    target: (_teamId, id, token, localUrl) => ({ url: localUrl, fields: { key: id, token } }),
    async write(teamId, id, data) {
      const path = symbolSetPath(dataDir, teamId, id);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, data);
    },
    async read(teamId, id) {
      try {
        return await readFile(symbolSetPath(dataDir, teamId, id));
      } catch (error) {
        if (missing(error)) return undefined;
        throw error;
      }
    },
    async remove(teamId, id) {
      await rm(symbolSetPath(dataDir, teamId, id), { force: true });
    },
  };
}
