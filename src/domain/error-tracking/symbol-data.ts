import { validationError } from '../../errors.js';

/**
 * PostHog's symbol-set container, as `posthog-cli sourcemap upload` writes it (cymbal reads it):
 * the magic `posthog_error_tracking`, a u32 version, a u32 data type (2: a minified source and its
 * map), from version 2 a u32 compression (0: none, 1: zstd), then the source and the map, each
 * a u64 length and UTF-8 bytes. All little-endian.
 */
const MAGIC = Buffer.from('posthog_error_tracking');
const SOURCE_AND_MAP = 2;

export interface SourceAndMap {
  minifiedSource: string;
  sourcemap: string;
}

const bad = (detail: string) => validationError(`Invalid symbol set: ${detail}`, null, 'invalid_symbol_set');

export function readSymbolData(data: Buffer): SourceAndMap {
  if (data.length < MAGIC.length + 8 || !data.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw bad('not a PostHog symbol set (no magic header)');
  }
  let at = MAGIC.length;
  const version = data.readUInt32LE(at);
  const type = data.readUInt32LE(at + 4);
  at += 8;
  if (version !== 1 && version !== 2) throw bad(`unknown version ${version}`);
  if (type !== SOURCE_AND_MAP) throw bad(`data type ${type} is not a JavaScript source and map`);
  if (version === 2) {
    if (data.length < at + 4) throw bad('truncated header');
    const compression = data.readUInt32LE(at);
    at += 4;
    // zstd needs a decoder this Node version does not have; refused rather than stored unreadable.
    if (compression !== 0) throw bad(`compression ${compression} is not supported; upload uncompressed`);
  }
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

/** The container for a source and map (tests, and symbol sets made from a bundle). */
export function writeSymbolData(source: string, map: string): Buffer {
  const s = Buffer.from(source);
  const m = Buffer.from(map);
  const header = Buffer.alloc(MAGIC.length + 8);
  MAGIC.copy(header);
  header.writeUInt32LE(1, MAGIC.length);
  header.writeUInt32LE(SOURCE_AND_MAP, MAGIC.length + 4);
  const len = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  return Buffer.concat([header, len(s.length), s, len(m.length), m]);
}
