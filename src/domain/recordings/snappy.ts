/**
 * Snappy's raw block format, written with literals only (no back-references). Any Snappy decoder
 * reads it; it is not smaller than its input. PostHog's player asks for blocks it decompresses
 * itself (`decompress=false`), and Burrow stores rrweb data ZSTD-compressed in the engine, so there
 * is no Snappy block to pass through: this wraps the text in the format instead of compressing it.
 */
const LITERAL_CHUNK = 65_536;

/** A raw Snappy block holding `input`. */
export function snappyLiterals(input: Uint8Array): Buffer {
  const chunks = Math.ceil(input.length / LITERAL_CHUNK);
  // varint length (≤ 5 bytes) + per chunk a tag and a 2-byte length.
  const out = Buffer.allocUnsafe(5 + chunks * 3 + input.length);
  let at = 0;
  let n = input.length;
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[at++] = n;
  for (let from = 0; from < input.length; from += LITERAL_CHUNK) {
    const len = Math.min(LITERAL_CHUNK, input.length - from);
    // Tag 61 << 2: a literal whose length - 1 follows in two little-endian bytes.
    out[at++] = 61 << 2;
    out.writeUInt16LE(len - 1, at);
    at += 2;
    out.set(input.subarray(from, from + len), at);
    at += len;
  }
  return out.subarray(0, at);
}

/** PostHog's `decompress=false` body: each block as a 4-byte big-endian length and a Snappy block. */
export function lengthPrefixedSnappy(blocks: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  for (const block of blocks) {
    const compressed = snappyLiterals(Buffer.from(block));
    const prefix = Buffer.allocUnsafe(4);
    prefix.writeUInt32BE(compressed.length);
    parts.push(prefix, compressed);
  }
  return Buffer.concat(parts);
}
