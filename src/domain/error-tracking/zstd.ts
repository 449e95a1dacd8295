import * as zlib from 'node:zlib';

/**
 * zstd decompression for posthog-cli's compressed symbol sets, bounded by `max` output bytes (a
 * small upload must not expand without limit). Node has `zlib.zstdDecompressSync` from 22.15; on
 * older Node the pure-JS `fzstd` package decodes, when it is installed. Neither: `null`.
 */
type ZstdStream = new (
  ondata: (chunk: Uint8Array, final?: boolean) => void,
) => { push(chunk: Uint8Array, final?: boolean): void };

export class ZstdTooLarge extends Error {}

const nodeZstd = (zlib as unknown as { zstdDecompressSync?: typeof zlib.inflateSync }).zstdDecompressSync;

let fzstd: Promise<ZstdStream | null> | undefined;

/** Loads `fzstd` once (a specifier is given only by tests of a copy outside node_modules). */
export function fzstdDecoder(specifier = 'fzstd'): Promise<ZstdStream | null> {
  const load = () =>
    import(specifier).then(
      (m: { Decompress?: ZstdStream; default?: { Decompress?: ZstdStream } }) =>
        m.Decompress ?? m.default?.Decompress ?? null,
      () => null,
    );
  if (specifier !== 'fzstd') return load();
  fzstd ??= load();
  return fzstd;
}

/** Whether this process can decompress zstd at all. */
export async function zstdAvailable(): Promise<boolean> {
  return Boolean(nodeZstd) || (await fzstdDecoder()) !== null;
}

export async function zstdDecompress(
  data: Uint8Array,
  max: number,
  decoder?: ZstdStream | null,
): Promise<Buffer | null> {
  if (nodeZstd && decoder === undefined) {
    try {
      return nodeZstd(data, { maxOutputLength: max });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
        throw new ZstdTooLarge(`decompresses to more than ${max} bytes`);
      }
      throw error;
    }
  }
  const Stream = decoder === undefined ? await fzstdDecoder() : decoder;
  if (!Stream) return null;
  const parts: Uint8Array[] = [];
  let total = 0;
  // Streamed so that the bound holds while decoding, not after a huge buffer is made.
  const stream = new Stream((chunk) => {
    total += chunk.length;
    if (total > max) throw new ZstdTooLarge(`decompresses to more than ${max} bytes`);
    parts.push(chunk);
  });
  const STEP = 1 << 20;
  for (let at = 0; at < data.length; at += STEP) {
    stream.push(data.subarray(at, Math.min(at + STEP, data.length)), at + STEP >= data.length);
  }
  if (data.length === 0) stream.push(new Uint8Array(0), true);
  return Buffer.concat(parts);
}
