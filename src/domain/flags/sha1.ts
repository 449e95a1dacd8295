/**
 * SHA-1 of a short UTF-8 string, returning the first 60 bits as a number in [0, 2^60). Flag
 * evaluation hashes every (flag, user) pair on every request; `crypto.createHash` costs several
 * microseconds per call in object setup alone, this costs well under one. Checked against
 * node:crypto and PostHog's SDK core in the tests.
 */
const W = new Int32Array(80);
let bytes = new Uint8Array(256);
const encoder = new TextEncoder();

export function sha1Prefix60(text: string): number {
  // UTF-8 into a reused buffer with room for the padding (message + 0x80 + 8-byte length).
  let length = text.length;
  if (length * 3 + 72 > bytes.length) bytes = new Uint8Array(length * 3 + 72);
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) {
      ascii = false;
      break;
    }
    bytes[i] = c;
  }
  if (!ascii) length = encoder.encodeInto(text, bytes).written;
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

  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let b = 0; b < total; b += 64) {
    for (let i = 0; i < 16; i++) {
      const o = b + i * 4;
      W[i] =
        ((bytes[o] as number) << 24) |
        ((bytes[o + 1] as number) << 16) |
        ((bytes[o + 2] as number) << 8) |
        (bytes[o + 3] as number);
    }
    for (let i = 16; i < 80; i++) {
      const x = (W[i - 3] as number) ^ (W[i - 8] as number) ^ (W[i - 14] as number) ^ (W[i - 16] as number);
      W[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let bb = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      let f: number;
      let k: number;
      if (i < 20) {
        f = (bb & c) | (~bb & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = bb ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (bb & c) | (bb & d) | (c & d);
        k = 0x8f1bbcdc | 0;
      } else {
        f = bb ^ c ^ d;
        k = 0xca62c1d6 | 0;
      }
      const t = (((a << 5) | (a >>> 27)) + f + e + k + (W[i] as number)) | 0;
      e = d;
      d = c;
      c = (bb << 30) | (bb >>> 2);
      bb = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + bb) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  // First 15 hex digits = 60 bits: all 32 of h0 and the top 28 of h1.
  return (h0 >>> 0) * 2 ** 28 + ((h1 >>> 4) >>> 0);
}
