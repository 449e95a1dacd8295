import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ApiError, notFound, validationError } from '../../errors.js';
import {
  deleteSymbolSet,
  insertRelease,
  listReleases,
  listSymbolSets,
  type ReleaseRecord,
  releaseBy,
  type SymbolSetRecord,
  symbolSetById,
  symbolSetByRef,
  upsertSymbolSet,
} from '../../store/meta/error-tracking.js';
import { isUniqueViolation } from '../../store/meta/errors.js';
import type { ProjectAccess } from '../access.js';
import type { Deps } from '../deps.js';
import { decodeSymbolData } from './symbol-data.js';

import { MAX_SYMBOL_SET_BYTES, type SymbolStorage } from './symbol-storage.js';

export { MAX_SYMBOL_SET_BYTES };
/** Symbol sets per bulk_start_upload call. */
export const MAX_SYMBOL_SETS_PER_CALL = 1000;
const PENDING = 'pending:';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StartItem {
  chunk_id: string;
  release_id?: string | null | undefined;
  content_hash?: string | null | undefined;
}

/**
 * `bulk_start_upload`: a symbol set per chunk id (new, or one whose content changed with `force`)
 * and where to upload it: a presigned S3 POST (as PostHog answers) when object storage is set up,
 * else a one-time URL on this server.
 * Chunks already uploaded with the same content hash are left out of `id_map` (the CLI skips them).
 */
export async function startUploads(
  deps: Deps,
  access: ProjectAccess,
  body: { symbol_sets: StartItem[]; force?: boolean | undefined; skip_on_conflict?: boolean | undefined },
  storage: SymbolStorage,
  uploadUrl: (id: string) => string,
) {
  const teamId = access.team.id;
  if (body.symbol_sets.length > MAX_SYMBOL_SETS_PER_CALL) {
    throw validationError(`At most ${MAX_SYMBOL_SETS_PER_CALL} symbol sets per call.`, 'symbol_sets');
  }
  const idMap: Record<
    string,
    { symbol_set_id: string; presigned_url: { url: string; fields: Record<string, string> } }
  > = {};
  for (const item of body.symbol_sets) {
    if (item.release_id) {
      if (!UUID.test(item.release_id) || !(await releaseBy(deps.meta, teamId, { id: item.release_id }))) {
        throw validationError(`Release ${item.release_id.slice(0, 64)} not found.`, 'release_id');
      }
    }
    const existing = await symbolSetByRef(deps.meta, teamId, item.chunk_id);
    const uploaded = existing?.storagePtr && !existing.storagePtr.startsWith(PENDING);
    if (existing && uploaded) {
      if (existing.contentHash && existing.contentHash === item.content_hash) continue;
      if (existing.releaseId && item.release_id && existing.releaseId !== item.release_id && !body.force) {
        throw new ApiError(
          400,
          'validation_error',
          'release_id_mismatch',
          'Symbol sets already exist with different release ids.',
        );
      }
      if (!body.force) {
        if (body.skip_on_conflict) continue;
        throw new ApiError(
          400,
          'validation_error',
          'content_hash_mismatch',
          `Symbol set ${item.chunk_id.slice(0, 64)} exists with other content (use force or skip_on_conflict).`,
        );
      }
    }
    const token = randomBytes(24).toString('hex');
    const record: SymbolSetRecord = {
      id: existing?.id ?? randomUUID(),
      teamId,
      ref: item.chunk_id,
      releaseId: item.release_id ?? existing?.releaseId ?? null,
      storagePtr: `${PENDING}${token}`,
      contentHash: item.content_hash ?? null,
      failureReason: null,
      createdAt: existing?.createdAt ?? deps.now().toISOString(),
    };
    await upsertSymbolSet(deps.meta, record);
    idMap[item.chunk_id] = {
      symbol_set_id: record.id,
      presigned_url: storage.target(teamId, record.id, token, uploadUrl(record.id)),
    };
  }
  return { id_map: idMap };
}

/** This server's upload target's POST: the token of the start call, once; the bytes go to storage. */
export async function receiveUpload(
  deps: Deps,
  storage: SymbolStorage,
  teamId: number,
  id: string,
  token: string | undefined,
  data: Buffer,
): Promise<void> {
  if (!UUID.test(id)) throw notFound();
  const set = await symbolSetById(deps.meta, teamId, id);
  const expected = set?.storagePtr?.startsWith(PENDING)
    ? Buffer.from(set.storagePtr.slice(PENDING.length))
    : null;
  const given = Buffer.from(token ?? '');
  if (!set || !expected || expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new ApiError(403, 'authentication_error', 'permission_denied', 'Invalid or used upload token.');
  }
  if (data.length > MAX_SYMBOL_SET_BYTES) {
    throw new ApiError(
      413,
      'invalid_request',
      'file_too_large',
      `A symbol set is at most ${MAX_SYMBOL_SET_BYTES} bytes.`,
    );
  }
  await storage.write(teamId, id, data);
  await upsertSymbolSet(deps.meta, { ...set, storagePtr: id, failureReason: null });
}

/**
 * `bulk_finish_upload`: each uploaded symbol set is checked readable (a 400 names the first that is
 * not). A set uploaded to S3 is seen there first: this server never saw its bytes go by.
 */
export async function finishUploads(
  deps: Deps,
  storage: SymbolStorage,
  access: ProjectAccess,
  contentHashes: Record<string, string>,
): Promise<void> {
  const teamId = access.team.id;
  const entries = Object.entries(contentHashes);
  if (entries.length > MAX_SYMBOL_SETS_PER_CALL) {
    throw validationError(`At most ${MAX_SYMBOL_SETS_PER_CALL} symbol sets per call.`, 'content_hashes');
  }
  for (const [id, hash] of entries) {
    const set = UUID.test(id) ? await symbolSetById(deps.meta, teamId, id) : undefined;
    if (!set) throw validationError(`Symbol set ${id.slice(0, 64)} not found.`, 'content_hashes');
    const pending = !set.storagePtr || set.storagePtr.startsWith(PENDING);
    const data = pending && storage.kind === 'local' ? undefined : await storage.read(teamId, id);
    if (!data) {
      throw validationError(`Symbol set ${id} was not uploaded.`, 'content_hashes', 'not_uploaded');
    }
    if (data.length > MAX_SYMBOL_SET_BYTES) {
      throw validationError(
        `Symbol set ${id} is larger than ${MAX_SYMBOL_SET_BYTES} bytes.`,
        'content_hashes',
      );
    }
    try {
      const { sourcemap } = await decodeSymbolData(data);
      const map = JSON.parse(sourcemap) as { mappings?: unknown };
      if (typeof map !== 'object' || map === null || typeof map.mappings !== 'string') {
        throw validationError(
          'Invalid symbol set: the source map has no mappings.',
          null,
          'invalid_symbol_set',
        );
      }
    } catch (error) {
      const reason =
        error instanceof ApiError ? error.detail : 'Invalid symbol set: the source map is not JSON.';
      await upsertSymbolSet(deps.meta, { ...set, failureReason: reason });
      throw error instanceof ApiError ? error : validationError(reason, null, 'invalid_symbol_set');
    }
    await upsertSymbolSet(deps.meta, { ...set, storagePtr: id, contentHash: hash, failureReason: null });
  }
}

export async function listSets(
  deps: Deps,
  access: ProjectAccess,
  ref: string | undefined,
  page: { limit: number; offset: number },
) {
  return listSymbolSets(deps.meta, access.team.id, ref, page);
}

export async function getSet(deps: Deps, access: ProjectAccess, id: string): Promise<SymbolSetRecord> {
  const set = UUID.test(id) ? await symbolSetById(deps.meta, access.team.id, id) : undefined;
  if (!set) throw notFound();
  return set;
}

export async function removeSet(
  deps: Deps,
  storage: SymbolStorage,
  access: ProjectAccess,
  id: string,
): Promise<void> {
  await getSet(deps, access, id);
  await deleteSymbolSet(deps.meta, access.team.id, id);
  await storage.remove(access.team.id, id);
}

export async function readSetBytes(storage: SymbolStorage, set: SymbolSetRecord): Promise<Buffer> {
  const bytes =
    !set.storagePtr || set.storagePtr.startsWith(PENDING)
      ? undefined
      : await storage.read(set.teamId, set.id);
  if (!bytes) throw notFound('The symbol set was not uploaded.');
  return bytes;
}

export async function createRelease(
  deps: Deps,
  access: ProjectAccess,
  body: { hash_id: string; version: string; project: string; metadata?: unknown },
): Promise<ReleaseRecord> {
  const record: ReleaseRecord = {
    id: randomUUID(),
    teamId: access.team.id,
    hashId: body.hash_id,
    version: body.version,
    project: body.project,
    metadata: body.metadata ?? null,
    createdAt: deps.now().toISOString(),
  };
  try {
    await insertRelease(deps.meta, record);
  } catch (error) {
    if (isUniqueViolation(error))
      throw validationError('A release with this hash_id exists.', 'hash_id', 'unique');
    throw error;
  }
  return record;
}

export async function releaseByHash(deps: Deps, access: ProjectAccess, hash: string): Promise<ReleaseRecord> {
  const r = await releaseBy(deps.meta, access.team.id, { hashId: hash });
  if (!r) throw notFound();
  return r;
}

export async function releaseById(deps: Deps, access: ProjectAccess, id: string): Promise<ReleaseRecord> {
  const r = UUID.test(id) ? await releaseBy(deps.meta, access.team.id, { id }) : undefined;
  if (!r) throw notFound();
  return r;
}

export const releases = (deps: Deps, access: ProjectAccess, page: { limit: number; offset: number }) =>
  listReleases(deps.meta, access.team.id, page);
