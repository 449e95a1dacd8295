import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import { estimatedProgramSize } from './size.js';

/**
 * Every regular expression a user writes and Burrow runs in the Node process goes through here.
 * re2js is RE2: matching takes time linear in the text, so no pattern can hold the event loop the
 * way V8's backtracking engine did (`(a|a)*$` against 35 characters: over a minute). Its syntax is
 * the one ClickHouse's `match()` accepts, so a pattern behaves the same in a flag (evaluated here)
 * as in a cohort, insight or action (evaluated by the events engine).
 *
 * The semantics are ClickHouse's `match(text, pattern)`: a search for the pattern anywhere in the
 * text (anchor it with `^`/`$` to match the whole), case-sensitive (`(?i)` to ignore case), `.`
 * matching newlines too, `^`/`$` the ends of the whole text.
 */
export const REGEX_LIMITS = {
  /** Characters in a pattern. */
  patternLength: 4_000,
  /** RE2 instructions a pattern compiles to (`.{1000}` is about 1 000). */
  programSize: 5_000,
  /**
   * Text length × program size one match may cost. Linear is not free: when the engine's DFA
   * gives up, a match costs about 15 ns per character and instruction (`a.{1000}$x` against
   * 100 000 characters: 1.5 s), so the product is bounded, about 30 ms at most per match.
   */
  matchCost: 2_000_000,
  /** Compiled patterns kept, and the instructions they may hold together (~1 KB each). */
  cacheEntries: 1_000,
  cacheInstructions: 200_000,
};

/** A pattern RE2 runs, or why it cannot. */
export type Compiled = { ok: true; re: RE2JS; size: number } | { ok: false; problem: string };

/** A match that would cost more than `REGEX_LIMITS.matchCost`: an evaluation error, not a false. */
export class RegexTooCostly extends Error {
  constructor(readonly textLength: number) {
    super(
      `A regular expression could not be evaluated against a ${textLength}-character value (more work than one match may take).`,
    );
  }
}

const cache = new LRUCache<string, Compiled>({
  max: REGEX_LIMITS.cacheEntries,
  maxSize: REGEX_LIMITS.cacheInstructions,
  sizeCalculation: (c) => (c.ok ? Math.max(1, c.size) : 1),
});

function compileNow(pattern: string): Compiled {
  if (pattern.length > REGEX_LIMITS.patternLength)
    return { ok: false, problem: `longer than ${REGEX_LIMITS.patternLength} characters` };
  const tooComplex = {
    ok: false as const,
    problem: `too complex (it expands to more than ${REGEX_LIMITS.programSize} steps; repetitions such as {1000} count once per copy)`,
  };
  if (estimatedProgramSize(pattern, REGEX_LIMITS.programSize) > REGEX_LIMITS.programSize) return tooComplex;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, RE2JS.DOTALL);
  } catch (error) {
    return { ok: false, problem: describe(error) };
  }
  const size = programSize(re);
  if (size > REGEX_LIMITS.programSize) return tooComplex;
  return { ok: true, re, size };
}

/** re2js's message without its "error parsing regexp: " prefix. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp:\s*/, '').slice(0, 300);
}

/** Instructions of the compiled program (re2js keeps them on the RE2 object it wraps). */
function programSize(re: RE2JS): number {
  const prog = (re.re2() as unknown as { prog?: { inst?: unknown[] } }).prog;
  return Array.isArray(prog?.inst) ? prog.inst.length : 0;
}

/** The pattern compiled (cached), or why RE2 cannot run it. */
export function compileRegex(pattern: string): Compiled {
  let compiled = cache.get(pattern);
  if (compiled === undefined) {
    compiled = compileNow(pattern);
    cache.set(pattern, compiled);
  }
  return compiled;
}

/** Why RE2 cannot run `pattern` (syntax, length, size), or null when it can. */
export function regexProblem(pattern: string): string | null {
  const compiled = compileRegex(pattern);
  return compiled.ok ? null : compiled.problem;
}

/**
 * Whether `pattern` occurs in `text`, as ClickHouse's `match()`; null when the pattern cannot run
 * (it was stored before patterns were checked, or by an older version). Throws `RegexTooCostly`
 * when the text is too long for the pattern's size.
 */
export function regexMatches(pattern: string, text: string): boolean | null {
  const compiled = compileRegex(pattern);
  if (!compiled.ok) return null;
  if (text.length * Math.max(1, compiled.size) > REGEX_LIMITS.matchCost)
    throw new RegexTooCostly(text.length);
  return compiled.re.test(text);
}
