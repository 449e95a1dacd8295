/**
 * How deeply JSON text nests, without parsing it. `JSON.parse` itself copes with any depth, but
 * everything after it recurses over the value (`JSON.stringify`, schema validation, the query
 * cache key, HogQL placeholders, property flattening), and at a few thousand levels one of them
 * overflows the stack: a 500. Bodies are measured first and refused with a 400 instead.
 *
 * Works on a string (UTF-16 code units) or on UTF-8 bytes: every character that matters (`"`,
 * `\`, brackets) is ASCII in both, and no byte of a multi-byte UTF-8 sequence is ASCII.
 */
export function jsonDepthExceeds(
  text: string | Uint8Array,
  max: number,
  start = 0,
  end = text.length,
): boolean {
  const code =
    typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i] as number;
  let depth = 0;
  for (let i = start; i < end; i++) {
    const c = code(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped by a backslash.
      for (i++; i < end; i++) {
        const s = code(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** API bodies: PostHog's deepest (nested property groups, insight queries) stay far below. */
export const MAX_API_JSON_DEPTH = 100;
