import { call, compare, constant, type Expr, field } from './ast.js';

/**
 * Element matches over an autocapture event's `elements_chain` (`tag.c1.c2:attr="v"…;parent…`,
 * clicked element first, quotes in values written `\"`). Burrow stores only the chain, so texts and
 * hrefs are extracted from it here rather than read from materialized columns. Actions' steps and
 * `element` property filters share these.
 */
export type Matching = 'contains' | 'regex' | 'exact';

/** RE2-safe literal. */
export const reEscape = (s: string) => s.replace(/[\\^$.|?*+()[\]{}\-/]/g, '\\$&');
/** A value as the chain writes it (quotes escaped). */
export const chainValue = (s: string) => s.replace(/"/g, '\\"');
/** `%`/`_` as literals in a LIKE pattern. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, '\\$&');

const chain = () => field('elements_chain');
const lambda = (arg: string, expr: Expr): Expr => ({ node: 'Lambda', args: [arg], expr });
// An attribute starts right after the element's `:` or the previous value's closing quote.
const attrValue = (key: string) => `(?::|")${key}="((?:[^"\\\\]|\\\\.)*)"`;
const unquote = (e: Expr) => call('replaceAll', [e, constant('\\"'), constant('"')]);

/** A value compared the way a `*_matching` says; `contains` is case-insensitive when asked. */
export function matches(value: Expr, pattern: string, how: Matching, caseInsensitiveContains: boolean): Expr {
  if (how === 'exact') return compare('==', value, constant(pattern));
  if (how === 'regex') return call('match', [value, constant(pattern)]);
  return compare(caseInsensitiveContains ? 'ilike' : 'like', value, constant(`%${likeEscape(pattern)}%`));
}

/** Every value of `key` (`text`, `href`) in the chain, unescaped. */
export const chainValues = (key: 'text' | 'href'): Expr =>
  call('arrayMap', [
    lambda('x', unquote(field('x'))),
    call('extractAll', [chain(), constant(attrValue(key))]),
  ]);

/** Some element's `text` (or `href`) satisfies `test`. */
export const anyElement = (key: 'text' | 'href', test: (value: Expr) => Expr): Expr =>
  call('arrayExists', [lambda('x', test(field('x'))), chainValues(key)]);

/** Any element's text matches (contains: case-insensitive). */
export const textMatches = (text: string, how: Matching): Expr =>
  anyElement('text', (x) => matches(x, text, how, true));

/** The closest link's href (the first `href="…"` of the chain) matches, as PostHog's `elements_chain_href`. */
export function hrefMatches(href: string, how: Matching): Expr {
  const first = unquote(call('extract', [chain(), constant(attrValue('href'))]));
  return matches(first, href, how, true);
}

/** Some element of the chain has this tag name. */
export const tagNameMatches = (tag: string): Expr =>
  call('match', [chain(), constant(`(^|;)${reEscape(tag)}(\\.|:|;|$)`)]);
