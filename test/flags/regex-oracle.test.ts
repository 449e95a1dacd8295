import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGEX_LIMITS, RegexTooCostly, regexMatches, regexProblem } from '../../src/domain/regex/re2.js';
import { estimatedProgramSize } from '../../src/domain/regex/size.js';
import { type EventsStore, openEventsStore } from '../../src/store/events/store.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Burrow's regex engine (re2js, for flags and the cohorts they use) against ClickHouse's own
 * match() in a real chDB: the same answer for the same pattern and text, and the same patterns
 * refused, so a flag matches what a cohort or insight with that pattern matches.
 */
describe('user regexes: RE2 in Node against ClickHouse match()', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-regex-oracle-'));
  let store: EventsStore;

  beforeAll(async () => {
    store = await openEventsStore({ dataDir, database: 'regex_oracle' });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** ClickHouse's answer for each pair; null where it cannot compile the pattern. */
  async function clickhouse(pairs: Array<[string, string]>): Promise<Array<boolean | null>> {
    const out: Array<boolean | null> = [];
    for (const [pattern, text] of pairs) {
      try {
        const rows = await store.query<{ m: number }>('SELECT match({t:String}, {p:String}) AS m', {
          params: { t: text, p: pattern },
        });
        out.push(Number(rows[0]?.m) === 1);
      } catch {
        out.push(null);
      }
    }
    return out;
  }

  const PATTERNS = [
    'abc',
    '^abc',
    'abc$',
    '^$',
    'a.c',
    '(?i)ABC',
    'A',
    '^a\\nb$',
    '(?m)^b$',
    '(?-s)a.b',
    '\\d{2,3}',
    '[[:alpha:]]+\\d',
    '\\bfoo\\b',
    '(?P<w>fo+)bar',
    '(?<w>fo+)bar',
    '\\Qa.b\\E',
    '^.$',
    '\\pL\\pN',
    '\\x{e9}',
    '[^a-z]',
    'a|^b',
    '(a|a)*$',
    '(a+)+$',
    'x*',
    'colou?r',
    '^(https?://)?[^/]+/checkout$',
    '@acme\\.com$',
  ];
  const TEXTS = [
    'abc',
    'xabcx',
    'ABC',
    '',
    'a\nb',
    'a\nb\nc',
    'axc',
    'a.b',
    'fooobar',
    'foo bar',
    '12',
    '1234',
    'é',
    'ée1',
    'b',
    'aaaa!',
    'color',
    'https://shop.test/checkout',
    'ann@acme.com',
    'null',
    '[1,2]',
  ];

  it('answers as match() for every pattern × text of a fixed list (newlines, case, anchors, Unicode)', async () => {
    const pairs = PATTERNS.flatMap((p) => TEXTS.map((t) => [p, t] as [string, string]));
    const expected = await clickhouse(pairs);
    const got = pairs.map(([p, t]) => regexMatches(p, t));
    const differences = pairs
      .map(([p, t], i) => ({ p, t, clickhouse: expected[i], burrow: got[i] }))
      .filter((d) => d.clickhouse !== d.burrow);
    expect(differences).toEqual([]);
  }, 120_000);

  it('answers as match() for random patterns over a small alphabet (seed printed on failure)', async () => {
    const seed = 29;
    const r = seededRandom(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)] as T;
    const atom = (): string => pick(['a', 'b', '.', '[ab]', '[^a]', '\\n', '(a|b)', '(ab|ba)', 'a?']);
    const piece = () => atom() + pick(['', '', '*', '+', '?', '{2}', '{1,3}', '*?']);
    const pattern = () =>
      (r() < 0.3 ? '^' : '') +
      Array.from({ length: 1 + Math.floor(r() * 4) }, piece).join('') +
      (r() < 0.3 ? '$' : '');
    const text = () =>
      Array.from({ length: Math.floor(r() * 8) }, () => pick(['a', 'b', 'c', '\n'])).join('');
    const pairs = Array.from({ length: 300 }, () => [pattern(), text()] as [string, string]);
    const expected = await clickhouse(pairs);
    const differences = pairs
      .map(([p, t], i) => ({ p, t, clickhouse: expected[i], burrow: regexMatches(p, t) }))
      .filter((d) => d.clickhouse !== d.burrow);
    expect(differences, `seed ${seed}`).toEqual([]);
  }, 120_000);

  it('refuses what ClickHouse cannot compile (lookarounds, backreferences, bad repeats)', async () => {
    const refused = ['a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b', '(a)\\1', 'a++', 'a{1001}', '(', '[a', '*a'];
    const engine = await clickhouse(refused.map((p) => [p, 'ab']));
    expect(engine).toEqual(refused.map(() => null));
    for (const p of refused) expect(regexProblem(p), p).not.toBeNull();
    // A pattern stored before this check matches nothing, for regex and not_regex alike.
    expect(regexMatches('a(?=b)', 'ab')).toBeNull();
  }, 60_000);

  it('bounds pattern length, compiled size and the work of one match', () => {
    expect(regexProblem('a'.repeat(REGEX_LIMITS.patternLength + 1))).toMatch(/longer than/);
    // Measured before compiling: this one took re2js 9 s to compile.
    const started = performance.now();
    expect(regexProblem('a{1000}'.repeat(570))).toMatch(/too complex/);
    expect(regexProblem('(?:(?:a{100}){10}){10}')).toMatch(/too complex|repeat/);
    expect(performance.now() - started).toBeLessThan(500);
    expect(regexProblem('a.{1000}b')).toBeNull();
    // The estimate is an upper bound of the real program, and close to it.
    for (const p of ['abc', 'a{1000}', '(a|bc){3,5}', '[a-z]+@\\w+\\.com', '\\Qa.b\\E{9}'])
      expect(estimatedProgramSize(p, 1e6), p).toBeGreaterThanOrEqual(3);
    expect(estimatedProgramSize('a{1000}', 1e6)).toBeGreaterThanOrEqual(1000);
    expect(estimatedProgramSize('a{1000}', 1e6)).toBeLessThan(1100);

    // 1 000 instructions allow texts up to 2 000 characters; past that, an evaluation error.
    const heavy = 'a.{1000}$x';
    expect(regexMatches(heavy, 'b'.repeat(1_500))).toBe(false);
    expect(() => regexMatches(heavy, 'b'.repeat(5_000))).toThrow(RegexTooCostly);
    // A small pattern runs on long texts, in linear time.
    const t0 = performance.now();
    expect(regexMatches('(a|a)*b$', `${'a'.repeat(100_000)}!`)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
