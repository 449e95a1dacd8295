import { describe, expect, it } from 'vitest';
import { chainToElements } from '../../src/domain/query/elements-chain.js';
import { seededRandom } from '../helpers/random.js';

/**
 * An `elements_chain` arrives through public capture and is parsed in Node when events are
 * listed. The attribute pattern PostHog uses, run by V8, took quadratic time on a chain without a
 * closing quote (`a:k=` and 32 000 `=`: 2 s; a 1 MB chain: minutes with the event loop held).
 */
describe('elements_chain parsing of hostile chains', () => {
  // About 0.5 s each here (the chain splitter's own linear pass is most of it); V8 took minutes.
  it('parses 1 MB chains without closing quotes in linear time', () => {
    const mb = 1_000_000;
    for (const chain of [
      `a:k=${'='.repeat(mb)}`,
      `a:${'k="'.repeat(mb / 3)}`,
      `a:k="${'\\"'.repeat(mb / 2)}`,
    ]) {
      const started = performance.now();
      chainToElements(chain);
      expect(performance.now() - started, chain.slice(0, 12)).toBeLessThan(5_000);
    }
  });

  it('finds the attributes V8 finds with the same pattern (random chains, seed printed)', () => {
    const seed = 4242;
    const r = seededRandom(seed);
    const V8 = /(.*?)="(.*?[^\\])"/g;
    const LINE_BREAK = /[\n\r\u2028]/;
    let compared = 0;
    const alphabet = ['a', 'k', '=', '"', '\\', 'x', '\n', '\r', ':', '-', '\u2028'];
    for (let i = 0; i < 3_000; i++) {
      const attrs = Array.from(
        { length: Math.floor(r() * 24) },
        () => alphabet[Math.floor(r() * alphabet.length)],
      ).join('');
      const chain = `div:${attrs}`;
      const expected: Record<string, string> = {};
      let text: string | null = null;
      const start = chain.search(/:[a-zA-Z\-_0-9]*=/);
      for (const m of (start < 0 ? '' : chain.slice(start + 1)).matchAll(V8)) {
        const value = (m[2] as string).replace(/\\"/g, '"');
        if (m[1] === 'text') text = value;
        else if (m[1] && !['href', 'nth-child', 'nth-of-type', 'attr_id'].includes(m[1] as string))
          expected[m[1] as string] = value;
      }
      // Compared where the chain is one element (no `;` or space), attributes found as the
      // parser finds their start.
      const [el, ...rest] = chainToElements(chain);
      if (rest.length > 0 || /[; ]/.test(attrs) || /\s$/.test(attrs)) continue;
      // Line breaks inside quoted values: the RE2 path.
      compared += LINE_BREAK.test(attrs) ? 1 : 0;
      expect(
        { attributes: el?.attributes, text: el?.text ?? null },
        `seed ${seed}: ${JSON.stringify(attrs)}`,
      ).toEqual({
        attributes: expected,
        text,
      });
    }
    expect(compared).toBeGreaterThan(50);
  });
});
