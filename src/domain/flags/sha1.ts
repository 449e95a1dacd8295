/**
 * SHA-1 of a short UTF-8 string, returning the first 60 bits as a number in [0, 2^60). Flag
 * evaluation hashes every (flag, user) pair on every request; `crypto.createHash` costs several
 * microseconds per call in object setup alone, and even the one-shot `crypto.hash` with its hex
 * digest about 0.9 µs on this machine; this costs about 0.2 µs for a key and id in one block.
 * Checked against node:crypto and PostHog's SDK core in the tests.
 */
/** The 16 words of the block being hashed, big-endian. */
const W = new Int32Array(16);
let bytes = new Uint8Array(256);
const encoder = new TextEncoder();

/** Writes `text` at `at` as UTF-8 (ASCII without an encoder call); returns the end offset. */
function put(text: string, at: number): number {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return at + encoder.encodeInto(text.slice(i), bytes.subarray(at + i)).written + i;
    bytes[at + i] = c;
  }
  return at + n;
}

export function sha1Prefix60(text: string): number {
  return sha1Parts(text, '', '', '');
}

/**
 * SHA-1 prefix of `a + sep + b + c`, written straight into the buffer: PostHog's flag hash input
 * is `key.identifier` plus a salt, and building that string per flag cost as much as a block.
 */
export function sha1Parts(a: string, sep: string, b: string, c: string): number {
  const n = a.length + sep.length + b.length + c.length;
  // One block of ASCII (the usual flag key and distinct id): packed straight into the words.
  if (n <= 55 && packAscii(a, sep, b, c, n)) return compress(64, true);
  const room = n * 3 + 72;
  if (room > bytes.length) bytes = new Uint8Array(room);
  const length = put(c, put(b, put(sep, put(a, 0))));
  const blocks = ((length + 8) >>> 6) + 1;
  const total = blocks * 64;
  bytes[length] = 0x80;
  bytes.fill(0, length + 1, total);
  const bits = length * 8;
  bytes[total - 4] = (bits >>> 24) & 0xff;
  bytes[total - 3] = (bits >>> 16) & 0xff;
  bytes[total - 2] = (bits >>> 8) & 0xff;
  bytes[total - 1] = bits & 0xff;
  bytes[total - 5] = Math.floor(bits / 2 ** 32) & 0xff;
  return compress(total, false);
}

/**
 * The words of a fixed ASCII prefix (a flag's `key.`), packed once so that each hash packs only the
 * identifier after it; null when the prefix is not ASCII or leaves no room for an identifier.
 */
export function packPrefix(prefix: string): Int32Array | null {
  if (prefix.length > 48) return null;
  W.fill(0, 0, 16);
  if (packPart(prefix, 0) < 0) return null;
  return W.slice(0, 16);
}

/** `sha1Parts(prefix, '', b, c)` for a prefix packed by `packPrefix` (`length` characters). */
export function sha1Packed(words: Int32Array, length: number, prefix: string, b: string, c: string): number {
  const n = length + b.length + c.length;
  if (n <= 55) {
    W.set(words);
    if (packPart(c, packPart(b, length)) >= 0) {
      W[n >>> 2] = (W[n >>> 2] as number) | (0x80 << (24 - 8 * (n & 3)));
      W[15] = n * 8;
      return compress(64, true);
    }
  }
  return sha1Parts(prefix, '', b, c);
}

/** The padded single block as big-endian words in W; false when a character is not ASCII. */
function packAscii(a: string, sep: string, b: string, c: string, n: number): boolean {
  W.fill(0, 0, 16);
  const at = packPart(c, packPart(b, packPart(sep, packPart(a, 0))));
  if (at < 0) return false;
  W[n >>> 2] = (W[n >>> 2] as number) | (0x80 << (24 - 8 * (n & 3)));
  W[15] = n * 8;
  return true;
}

function packPart(part: string, at: number): number {
  if (at < 0) return at;
  for (let i = 0; i < part.length; i++, at++) {
    const code = part.charCodeAt(i);
    if (code > 0x7f) return -1;
    W[at >>> 2] = (W[at >>> 2] as number) | (code << (24 - 8 * (at & 3)));
  }
  return at;
}

/** The third and fourth round constants, as signed 32-bit integers. */
const K3 = 0x8f1bbcdc | 0;
const K4 = 0xca62c1d6 | 0;

/** The chaining state between blocks (h0..h4). */
const H = new Int32Array(5);

/** SHA-1 over `total` padded bytes of `bytes`, or over the one block packed in W; the 60-bit prefix. */
function compress(total: number, packedInW: boolean): number {
  H[0] = 0x67452301;
  H[1] = 0xefcdab89 | 0;
  H[2] = 0x98badcfe | 0;
  H[3] = 0x10325476;
  H[4] = 0xc3d2e1f0 | 0;
  for (let block = 0; block < total; block += 64) {
    for (let i = 0; i < 16 && !packedInW; i++) {
      const o = block + i * 4;
      W[i] =
        ((bytes[o] as number) << 24) |
        ((bytes[o + 1] as number) << 16) |
        ((bytes[o + 2] as number) << 8) |
        (bytes[o + 3] as number);
    }
    compressBlock();
  }
  // First 15 hex digits = 60 bits: all 32 of h0 and the top 28 of h1.
  return ((H[0] as number) >>> 0) * 2 ** 28 + (((H[1] as number) >>> 4) >>> 0);
}

/**
 * One block (its 16 words in W) into H. Written out round by round: the message schedule lives in
 * 16 local words (w0..w15, each replaced in place from round 16 on: w[i & 15] = rotl1(w[i-3] ^
 * w[i-8] ^ w[i-14] ^ w[i-16])) and the five working words change roles each round instead of being
 * moved, so the whole block runs in registers. This took 40% off a hash against loops over an
 * 80-word array (A/B micro-bench); the tests check it against node:crypto on thousands of inputs.
 * Round i (FIPS 180-4): e += rotl5(a) + f_i(b, c, d) + K_i + w_i; b = rotl30(b); then the roles
 * rotate (a, b, c, d, e) <- (e, a, b, c, d). f is Ch (as d ^ (b & (c ^ d))) for rounds 0-19,
 * Parity for 20-39 and 60-79, Maj (as (b & c) | (d & (b | c))) for 40-59.
 */
function compressBlock(): void {
  let w0 = W[0] as number;
  let w1 = W[1] as number;
  let w2 = W[2] as number;
  let w3 = W[3] as number;
  let w4 = W[4] as number;
  let w5 = W[5] as number;
  let w6 = W[6] as number;
  let w7 = W[7] as number;
  let w8 = W[8] as number;
  let w9 = W[9] as number;
  let w10 = W[10] as number;
  let w11 = W[11] as number;
  let w12 = W[12] as number;
  let w13 = W[13] as number;
  let w14 = W[14] as number;
  let w15 = W[15] as number;
  let a = H[0] as number;
  let b = H[1] as number;
  let c = H[2] as number;
  let d = H[3] as number;
  let e = H[4] as number;
  let t = 0;
  // Rounds 0-19: Ch, K = 0x5a827999.
  e = (e + ((a << 5) | (a >>> 27)) + (d ^ (b & (c ^ d))) + 0x5a827999 + w0) | 0;
  b = (b << 30) | (b >>> 2);
  d = (d + ((e << 5) | (e >>> 27)) + (c ^ (a & (b ^ c))) + 0x5a827999 + w1) | 0;
  a = (a << 30) | (a >>> 2);
  c = (c + ((d << 5) | (d >>> 27)) + (b ^ (e & (a ^ b))) + 0x5a827999 + w2) | 0;
  e = (e << 30) | (e >>> 2);
  b = (b + ((c << 5) | (c >>> 27)) + (a ^ (d & (e ^ a))) + 0x5a827999 + w3) | 0;
  d = (d << 30) | (d >>> 2);
  a = (a + ((b << 5) | (b >>> 27)) + (e ^ (c & (d ^ e))) + 0x5a827999 + w4) | 0;
  c = (c << 30) | (c >>> 2);
  e = (e + ((a << 5) | (a >>> 27)) + (d ^ (b & (c ^ d))) + 0x5a827999 + w5) | 0;
  b = (b << 30) | (b >>> 2);
  d = (d + ((e << 5) | (e >>> 27)) + (c ^ (a & (b ^ c))) + 0x5a827999 + w6) | 0;
  a = (a << 30) | (a >>> 2);
  c = (c + ((d << 5) | (d >>> 27)) + (b ^ (e & (a ^ b))) + 0x5a827999 + w7) | 0;
  e = (e << 30) | (e >>> 2);
  b = (b + ((c << 5) | (c >>> 27)) + (a ^ (d & (e ^ a))) + 0x5a827999 + w8) | 0;
  d = (d << 30) | (d >>> 2);
  a = (a + ((b << 5) | (b >>> 27)) + (e ^ (c & (d ^ e))) + 0x5a827999 + w9) | 0;
  c = (c << 30) | (c >>> 2);
  e = (e + ((a << 5) | (a >>> 27)) + (d ^ (b & (c ^ d))) + 0x5a827999 + w10) | 0;
  b = (b << 30) | (b >>> 2);
  d = (d + ((e << 5) | (e >>> 27)) + (c ^ (a & (b ^ c))) + 0x5a827999 + w11) | 0;
  a = (a << 30) | (a >>> 2);
  c = (c + ((d << 5) | (d >>> 27)) + (b ^ (e & (a ^ b))) + 0x5a827999 + w12) | 0;
  e = (e << 30) | (e >>> 2);
  b = (b + ((c << 5) | (c >>> 27)) + (a ^ (d & (e ^ a))) + 0x5a827999 + w13) | 0;
  d = (d << 30) | (d >>> 2);
  a = (a + ((b << 5) | (b >>> 27)) + (e ^ (c & (d ^ e))) + 0x5a827999 + w14) | 0;
  c = (c << 30) | (c >>> 2);
  e = (e + ((a << 5) | (a >>> 27)) + (d ^ (b & (c ^ d))) + 0x5a827999 + w15) | 0;
  b = (b << 30) | (b >>> 2);
  t = w13 ^ w8 ^ w2 ^ w0;
  w0 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (c ^ (a & (b ^ c))) + 0x5a827999 + w0) | 0;
  a = (a << 30) | (a >>> 2);
  t = w14 ^ w9 ^ w3 ^ w1;
  w1 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (b ^ (e & (a ^ b))) + 0x5a827999 + w1) | 0;
  e = (e << 30) | (e >>> 2);
  t = w15 ^ w10 ^ w4 ^ w2;
  w2 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (a ^ (d & (e ^ a))) + 0x5a827999 + w2) | 0;
  d = (d << 30) | (d >>> 2);
  t = w0 ^ w11 ^ w5 ^ w3;
  w3 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (e ^ (c & (d ^ e))) + 0x5a827999 + w3) | 0;
  c = (c << 30) | (c >>> 2);
  // Rounds 20-39: Parity, K = 0x6ed9eba1.
  t = w1 ^ w12 ^ w6 ^ w4;
  w4 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0x6ed9eba1 + w4) | 0;
  b = (b << 30) | (b >>> 2);
  t = w2 ^ w13 ^ w7 ^ w5;
  w5 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + 0x6ed9eba1 + w5) | 0;
  a = (a << 30) | (a >>> 2);
  t = w3 ^ w14 ^ w8 ^ w6;
  w6 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + 0x6ed9eba1 + w6) | 0;
  e = (e << 30) | (e >>> 2);
  t = w4 ^ w15 ^ w9 ^ w7;
  w7 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + 0x6ed9eba1 + w7) | 0;
  d = (d << 30) | (d >>> 2);
  t = w5 ^ w0 ^ w10 ^ w8;
  w8 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + 0x6ed9eba1 + w8) | 0;
  c = (c << 30) | (c >>> 2);
  t = w6 ^ w1 ^ w11 ^ w9;
  w9 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0x6ed9eba1 + w9) | 0;
  b = (b << 30) | (b >>> 2);
  t = w7 ^ w2 ^ w12 ^ w10;
  w10 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + 0x6ed9eba1 + w10) | 0;
  a = (a << 30) | (a >>> 2);
  t = w8 ^ w3 ^ w13 ^ w11;
  w11 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + 0x6ed9eba1 + w11) | 0;
  e = (e << 30) | (e >>> 2);
  t = w9 ^ w4 ^ w14 ^ w12;
  w12 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + 0x6ed9eba1 + w12) | 0;
  d = (d << 30) | (d >>> 2);
  t = w10 ^ w5 ^ w15 ^ w13;
  w13 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + 0x6ed9eba1 + w13) | 0;
  c = (c << 30) | (c >>> 2);
  t = w11 ^ w6 ^ w0 ^ w14;
  w14 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0x6ed9eba1 + w14) | 0;
  b = (b << 30) | (b >>> 2);
  t = w12 ^ w7 ^ w1 ^ w15;
  w15 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + 0x6ed9eba1 + w15) | 0;
  a = (a << 30) | (a >>> 2);
  t = w13 ^ w8 ^ w2 ^ w0;
  w0 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + 0x6ed9eba1 + w0) | 0;
  e = (e << 30) | (e >>> 2);
  t = w14 ^ w9 ^ w3 ^ w1;
  w1 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + 0x6ed9eba1 + w1) | 0;
  d = (d << 30) | (d >>> 2);
  t = w15 ^ w10 ^ w4 ^ w2;
  w2 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + 0x6ed9eba1 + w2) | 0;
  c = (c << 30) | (c >>> 2);
  t = w0 ^ w11 ^ w5 ^ w3;
  w3 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + 0x6ed9eba1 + w3) | 0;
  b = (b << 30) | (b >>> 2);
  t = w1 ^ w12 ^ w6 ^ w4;
  w4 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + 0x6ed9eba1 + w4) | 0;
  a = (a << 30) | (a >>> 2);
  t = w2 ^ w13 ^ w7 ^ w5;
  w5 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + 0x6ed9eba1 + w5) | 0;
  e = (e << 30) | (e >>> 2);
  t = w3 ^ w14 ^ w8 ^ w6;
  w6 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + 0x6ed9eba1 + w6) | 0;
  d = (d << 30) | (d >>> 2);
  t = w4 ^ w15 ^ w9 ^ w7;
  w7 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + 0x6ed9eba1 + w7) | 0;
  c = (c << 30) | (c >>> 2);
  // Rounds 40-59: Maj, K = 0x8f1bbcdc.
  t = w5 ^ w0 ^ w10 ^ w8;
  w8 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + ((b & c) | (d & (b | c))) + K3 + w8) | 0;
  b = (b << 30) | (b >>> 2);
  t = w6 ^ w1 ^ w11 ^ w9;
  w9 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + ((a & b) | (c & (a | b))) + K3 + w9) | 0;
  a = (a << 30) | (a >>> 2);
  t = w7 ^ w2 ^ w12 ^ w10;
  w10 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + ((e & a) | (b & (e | a))) + K3 + w10) | 0;
  e = (e << 30) | (e >>> 2);
  t = w8 ^ w3 ^ w13 ^ w11;
  w11 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + ((d & e) | (a & (d | e))) + K3 + w11) | 0;
  d = (d << 30) | (d >>> 2);
  t = w9 ^ w4 ^ w14 ^ w12;
  w12 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + ((c & d) | (e & (c | d))) + K3 + w12) | 0;
  c = (c << 30) | (c >>> 2);
  t = w10 ^ w5 ^ w15 ^ w13;
  w13 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + ((b & c) | (d & (b | c))) + K3 + w13) | 0;
  b = (b << 30) | (b >>> 2);
  t = w11 ^ w6 ^ w0 ^ w14;
  w14 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + ((a & b) | (c & (a | b))) + K3 + w14) | 0;
  a = (a << 30) | (a >>> 2);
  t = w12 ^ w7 ^ w1 ^ w15;
  w15 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + ((e & a) | (b & (e | a))) + K3 + w15) | 0;
  e = (e << 30) | (e >>> 2);
  t = w13 ^ w8 ^ w2 ^ w0;
  w0 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + ((d & e) | (a & (d | e))) + K3 + w0) | 0;
  d = (d << 30) | (d >>> 2);
  t = w14 ^ w9 ^ w3 ^ w1;
  w1 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + ((c & d) | (e & (c | d))) + K3 + w1) | 0;
  c = (c << 30) | (c >>> 2);
  t = w15 ^ w10 ^ w4 ^ w2;
  w2 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + ((b & c) | (d & (b | c))) + K3 + w2) | 0;
  b = (b << 30) | (b >>> 2);
  t = w0 ^ w11 ^ w5 ^ w3;
  w3 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + ((a & b) | (c & (a | b))) + K3 + w3) | 0;
  a = (a << 30) | (a >>> 2);
  t = w1 ^ w12 ^ w6 ^ w4;
  w4 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + ((e & a) | (b & (e | a))) + K3 + w4) | 0;
  e = (e << 30) | (e >>> 2);
  t = w2 ^ w13 ^ w7 ^ w5;
  w5 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + ((d & e) | (a & (d | e))) + K3 + w5) | 0;
  d = (d << 30) | (d >>> 2);
  t = w3 ^ w14 ^ w8 ^ w6;
  w6 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + ((c & d) | (e & (c | d))) + K3 + w6) | 0;
  c = (c << 30) | (c >>> 2);
  t = w4 ^ w15 ^ w9 ^ w7;
  w7 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + ((b & c) | (d & (b | c))) + K3 + w7) | 0;
  b = (b << 30) | (b >>> 2);
  t = w5 ^ w0 ^ w10 ^ w8;
  w8 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + ((a & b) | (c & (a | b))) + K3 + w8) | 0;
  a = (a << 30) | (a >>> 2);
  t = w6 ^ w1 ^ w11 ^ w9;
  w9 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + ((e & a) | (b & (e | a))) + K3 + w9) | 0;
  e = (e << 30) | (e >>> 2);
  t = w7 ^ w2 ^ w12 ^ w10;
  w10 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + ((d & e) | (a & (d | e))) + K3 + w10) | 0;
  d = (d << 30) | (d >>> 2);
  t = w8 ^ w3 ^ w13 ^ w11;
  w11 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + ((c & d) | (e & (c | d))) + K3 + w11) | 0;
  c = (c << 30) | (c >>> 2);
  // Rounds 60-79: Parity, K = 0xca62c1d6.
  t = w9 ^ w4 ^ w14 ^ w12;
  w12 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + K4 + w12) | 0;
  b = (b << 30) | (b >>> 2);
  t = w10 ^ w5 ^ w15 ^ w13;
  w13 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + K4 + w13) | 0;
  a = (a << 30) | (a >>> 2);
  t = w11 ^ w6 ^ w0 ^ w14;
  w14 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + K4 + w14) | 0;
  e = (e << 30) | (e >>> 2);
  t = w12 ^ w7 ^ w1 ^ w15;
  w15 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + K4 + w15) | 0;
  d = (d << 30) | (d >>> 2);
  t = w13 ^ w8 ^ w2 ^ w0;
  w0 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + K4 + w0) | 0;
  c = (c << 30) | (c >>> 2);
  t = w14 ^ w9 ^ w3 ^ w1;
  w1 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + K4 + w1) | 0;
  b = (b << 30) | (b >>> 2);
  t = w15 ^ w10 ^ w4 ^ w2;
  w2 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + K4 + w2) | 0;
  a = (a << 30) | (a >>> 2);
  t = w0 ^ w11 ^ w5 ^ w3;
  w3 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + K4 + w3) | 0;
  e = (e << 30) | (e >>> 2);
  t = w1 ^ w12 ^ w6 ^ w4;
  w4 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + K4 + w4) | 0;
  d = (d << 30) | (d >>> 2);
  t = w2 ^ w13 ^ w7 ^ w5;
  w5 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + K4 + w5) | 0;
  c = (c << 30) | (c >>> 2);
  t = w3 ^ w14 ^ w8 ^ w6;
  w6 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + K4 + w6) | 0;
  b = (b << 30) | (b >>> 2);
  t = w4 ^ w15 ^ w9 ^ w7;
  w7 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + K4 + w7) | 0;
  a = (a << 30) | (a >>> 2);
  t = w5 ^ w0 ^ w10 ^ w8;
  w8 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + K4 + w8) | 0;
  e = (e << 30) | (e >>> 2);
  t = w6 ^ w1 ^ w11 ^ w9;
  w9 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + K4 + w9) | 0;
  d = (d << 30) | (d >>> 2);
  t = w7 ^ w2 ^ w12 ^ w10;
  w10 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + K4 + w10) | 0;
  c = (c << 30) | (c >>> 2);
  t = w8 ^ w3 ^ w13 ^ w11;
  w11 = (t << 1) | (t >>> 31);
  e = (e + ((a << 5) | (a >>> 27)) + (b ^ c ^ d) + K4 + w11) | 0;
  b = (b << 30) | (b >>> 2);
  t = w9 ^ w4 ^ w14 ^ w12;
  w12 = (t << 1) | (t >>> 31);
  d = (d + ((e << 5) | (e >>> 27)) + (a ^ b ^ c) + K4 + w12) | 0;
  a = (a << 30) | (a >>> 2);
  t = w10 ^ w5 ^ w15 ^ w13;
  w13 = (t << 1) | (t >>> 31);
  c = (c + ((d << 5) | (d >>> 27)) + (e ^ a ^ b) + K4 + w13) | 0;
  e = (e << 30) | (e >>> 2);
  t = w11 ^ w6 ^ w0 ^ w14;
  w14 = (t << 1) | (t >>> 31);
  b = (b + ((c << 5) | (c >>> 27)) + (d ^ e ^ a) + K4 + w14) | 0;
  d = (d << 30) | (d >>> 2);
  t = w12 ^ w7 ^ w1 ^ w15;
  w15 = (t << 1) | (t >>> 31);
  a = (a + ((b << 5) | (b >>> 27)) + (c ^ d ^ e) + K4 + w15) | 0;
  c = (c << 30) | (c >>> 2);
  H[0] = ((H[0] as number) + a) | 0;
  H[1] = ((H[1] as number) + b) | 0;
  H[2] = ((H[2] as number) + c) | 0;
  H[3] = ((H[3] as number) + d) | 0;
  H[4] = ((H[4] as number) + e) | 0;
}
