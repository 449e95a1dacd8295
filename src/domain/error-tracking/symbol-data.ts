import { validationError } from '../../errors.js';
import { ZstdTooLarge, zstdDecompress } from './zstd.js';

/**
 * PostHog's symbol-set container, as `posthog-cli sourcemap upload` writes it (cymbal reads it):
 * the magic `posthog_error_tracking`, a u32 version, a u32 data type (2: a minified source and its
 * map), from version 2 one byte of compression (0: none, 1: zstd) and the payload, zstd-compressed
 * or not: the source and the map, each a u64 length and UTF-8 bytes. All little-endian. The CLI
 * writes version 2 with zstd.
 */
const MAGIC = Buffer.from('posthog_error_tracking');
const SOURCE_AND_MAP = 2;
const NONE = 0;
const ZSTD = 1;
/** What a decompressed payload may grow to (PostHog's limit for one symbol set). */
const MAX_DECOMPRESSED = 100 * 1024 * 1024;

export interface SourceAndMap {
  minifiedSource: string;
  sourcemap: string;
}

const bad = (detail: string) => validationError(`Invalid symbol set: ${detail}`, null, 'invalid_symbol_set');

/** The container's header: the payload and whether it is zstd-compressed. */
function container(data: Buffer): { payload: Buffer; zstd: boolean } {
  if (data.length < MAGIC.length + 8 || !data.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw bad('not a PostHog symbol set (no magic header)');
  }
  let at = MAGIC.length;
  const version = data.readUInt32LE(at);
  const type = data.readUInt32LE(at + 4);
  at += 8;
  if (version !== 1 && version !== 2) throw bad(`unknown version ${version}`);
  if (type !== SOURCE_AND_MAP) throw bad(`data type ${type} is not a JavaScript source and map`);
  if (version === 1) return { payload: data.subarray(at), zstd: false };
  if (data.length < at + 1) throw bad('truncated header');
  const compression = data.readUInt8(at);
  if (compression !== NONE && compression !== ZSTD) throw bad(`unknown compression ${compression}`);
  return { payload: data.subarray(at + 1), zstd: compression === ZSTD };
}

function sourceAndMap(data: Buffer): SourceAndMap {
  let at = 0;
  const take = (what: string): string => {
    if (data.length < at + 8) throw bad(`truncated before the ${what}'s length`);
    const len = Number(data.readBigUInt64LE(at));
    at += 8;
    if (len > data.length - at) throw bad(`the ${what} is longer than the data`);
    const text = data.subarray(at, at + len).toString('utf8');
    at += len;
    return text;
  };
  const minifiedSource = take('source');
  const sourcemap = take('source map');
  if (at !== data.length) throw bad('trailing bytes after the source map');
  return { minifiedSource, sourcemap };
}

/** Whether a container's payload is zstd-compressed (a 400 when it is no container). */
export const isCompressed = (data: Buffer): boolean => container(data).zstd;

/** An uncompressed container's source and map (a compressed one needs `decodeSymbolData`). */
export function readSymbolData(data: Buffer): SourceAndMap {
  const { payload, zstd } = container(data);
  if (zstd) throw bad('the payload is zstd-compressed');
  return sourceAndMap(payload);
}

/**
 * Any container's source and map: a zstd payload is decompressed (at most 100 MB out). Without a
 * zstd decoder (Node before 22.15 and no `fzstd`), a 400 that says so.
 */
export async function decodeSymbolData(data: Buffer): Promise<SourceAndMap> {
  const { payload, zstd } = container(data);
  if (!zstd) return sourceAndMap(payload);
  let plain: Buffer | null;
  try {
    plain = await zstdDecompress(payload, MAX_DECOMPRESSED);
  } catch (error) {
    if (error instanceof ZstdTooLarge) throw bad(`the payload ${error.message}`);
    throw bad(`the zstd payload does not decompress (${String((error as Error).message).slice(0, 200)})`);
  }
  if (!plain) {
    throw bad(
      'compression 1 (zstd) needs Node 22.15+ or the fzstd package on this server; upload uncompressed',
    );
  }
  return sourceAndMap(plain);
}

/** The payload of a source and map: each a u64 length and its UTF-8 bytes. */
export function sourceAndMapPayload(source: string, map: string): Buffer {
  const s = Buffer.from(source);
  const m = Buffer.from(map);
  const len = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  return Buffer.concat([len(s.length), s, len(m.length), m]);
}

/** A version 2 container around a payload, compressed as `compression` says (0 none, 1 zstd). */
export function writeSymbolDataV2(payload: Buffer, compression: 0 | 1): Buffer {
  const header = Buffer.alloc(MAGIC.length + 9);
  MAGIC.copy(header);
  header.writeUInt32LE(2, MAGIC.length);
  header.writeUInt32LE(SOURCE_AND_MAP, MAGIC.length + 4);
  header.writeUInt8(compression, MAGIC.length + 8);
  return Buffer.concat([header, payload]);
}

/** The version 1 container for a source and map (tests, and symbol sets made from a bundle). */
export function writeSymbolData(source: string, map: string): Buffer {
  const header = Buffer.alloc(MAGIC.length + 8);
  MAGIC.copy(header);
  header.writeUInt32LE(1, MAGIC.length);
  header.writeUInt32LE(SOURCE_AND_MAP, MAGIC.length + 4);
  return Buffer.concat([header, sourceAndMapPayload(source, map)]);
}
