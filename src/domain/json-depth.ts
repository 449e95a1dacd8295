/**
 * How deeply JSON text nests, without parsing it. `JSON.parse` itself copes with any depth, but
 * everything after it recurses over the value (`JSON.stringify`, schema validation, the query
 * cache key, HogQL placeholders, property flattening), and at a few thousand levels one of them
 * overflows the stack: a 500. Bodies are measured first and refused with a 400 instead.
 *
 * Works on a string (UTF-16 code units) or on UTF-8 bytes: every character that matters (`"`,
 * `\`, brackets) is ASCII in both, and no byte of a multi-byte UTF-8 sequence is ASCII.
 */
export function jsonDepthExceeds(text: string | Uint8Array, max: number): boolean {
  return typeof text === 'string' ? stringDepthExceeds(text, max) : bytesDepthExceeds(text, max);
}

// Two copies of one loop: a per-character callback would cost several times the scan itself.
function stringDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote not escaped by a backslash.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
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

function bytesDepthExceeds(text: Uint8Array, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const s = text[i];
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
