import { decodedTooLarge, malformed } from './errors.js';
import { runSync, type Steps, TICK } from './steps.js';

/**
 * lz-string's `compressToBase64` format (old posthog-js, `?compression=lz64`), decoded with a cap
 * on the output. The `lz-string` package cannot be bounded: its output can grow quadratically
 * with the input (each code may repeat everything before it), so a small body could expand to
 * gigabytes before a check after the fact. This follows the same bit format (LSB-first codes over
 * 6-bit base64 digits, 2/8/16-bit literals, a growing code width) and stops at `maxChars`.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
const DIGIT = new Map([...ALPHABET].map((char, index) => [char.charCodeAt(0), index]));

export const lz64Decompress = (input: string, maxChars: number): string =>
  runSync(lz64Steps(input, maxChars));

/** Pauses (a `tick`) every few thousand codes: the output may be megabytes. */
export function* lz64Steps(input: string, maxChars: number): Steps<string> {
  const text = input.replace(/ /g, '+');
  const digits = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const digit = DIGIT.get(text.charCodeAt(i));
    if (digit === undefined) throw malformed('data is not valid lz64');
    digits[i] = digit;
  }
  if (digits.length === 0) throw malformed('data is not valid lz64');

  // Bit reader: `next` is the index of the next digit to load; past the end reads zeros.
  let current = digits[0] ?? 0;
  let next = 1;
  let mask = 32;
  const read = (bits: number): number => {
    let value = 0;
    for (let power = 1, i = 0; i < bits; i++, power *= 2) {
      if (current & mask) value += power;
      mask >>= 1;
      if (mask === 0) {
        mask = 32;
        current = digits[next++] ?? 0;
      }
    }
    return value;
  };
  const truncated = () => malformed('lz64 data ended without its end marker');

  const first = read(2);
  if (first === 2) return '';
  if (first === 3) throw malformed('data is not valid lz64');
  const dictionary: string[] = [];
  let w = String.fromCharCode(read(first === 0 ? 8 : 16));
  dictionary[3] = w;
  let size = 4;
  let width = 3;
  let enlargeIn = 4;
  const out = [w];
  let length = w.length;

  for (let codes = 1; ; codes++) {
    if ((codes & 0xfff) === 0) yield TICK;
    if (next > digits.length) throw truncated();
    let code = read(width);
    if (code === 2) return out.join('');
    if (code === 0 || code === 1) {
      dictionary[size] = String.fromCharCode(read(code === 0 ? 8 : 16));
      code = size++;
      if (--enlargeIn === 0) enlargeIn = 2 ** width++;
    }
    const known = dictionary[code];
    let entry: string;
    if (known !== undefined) entry = known;
    else if (code === size) entry = w + w.charAt(0);
    else throw malformed('data is not valid lz64');
    length += entry.length;
    if (length > maxChars) throw decodedTooLarge(maxChars);
    out.push(entry);
    dictionary[size++] = w + entry.charAt(0);
    w = entry;
    if (--enlargeIn === 0) enlargeIn = 2 ** width++;
  }
}
