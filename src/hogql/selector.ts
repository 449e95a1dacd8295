import { call, compare, constant, type Expr, field } from './ast.js';
import { chainValue, reEscape } from './elements.js';
import { HogQLQueryError } from './errors.js';

/**
 * CSS selectors over `elements_chain`: compounds of tag, `.class`, `#id`, `[attr]`, `[attr="v"]`,
 * `:nth-child(n)`, `:nth-of-type(n)`, joined by descendant (space) or child (`>`) combinators.
 * Each compound tests one chain element on its own, so attribute order in the chain does not
 * matter; combinators walk the element indexes (1 = clicked element, larger = ancestors).
 */
interface Compound {
  tests: string[];
  child: boolean; // joined to the compound on its left by `>` (that one is its parent)
}

const IDENT = /^-?[_a-zA-Z][\w-]*/;
// Only the attributes autocapture writes: id and href have their own keys, the rest `attr__name`.
const chainKey = (attr: string) => (attr === 'id' ? 'attr_id' : attr === 'href' ? 'href' : `attr__${attr}`);
const attrTest = (key: string, value: string | null) =>
  `(?::|")${reEscape(key)}="${value === null ? '' : `${reEscape(chainValue(value))}"`}`;

function bad(selector: string, why: string) {
  return new HogQLQueryError(`Invalid selector "${selector.slice(0, 200)}": ${why}`);
}

const fn = (name: string, ...args: Expr[]) => call(name, args);
const v = (name: string) => field(name);
const num = (n: number) => constant(n);
const lambda = (args: string[], expr: Expr): Expr => ({ node: 'Lambda', args, expr });
const at = (array: Expr, index: Expr): Expr => ({ node: 'ArrayAccess', array, property: index });

/** The simple selector at the start of `s` (class, id, attribute, nth), as a test on one element. */
function nextPart(s: string): { test: string; length: number } | null {
  const cls = s[0] === '.' ? s.slice(1).match(IDENT) : null;
  if (cls) return { test: `^[^:]*\\.${reEscape(cls[0])}(?:\\.|:|$)`, length: 1 + cls[0].length };
  const id = s[0] === '#' ? s.slice(1).match(IDENT) : null;
  if (id) return { test: attrTest('attr_id', id[0]), length: 1 + id[0].length };
  const attr = s.match(/^\[\s*([\w-]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([\w-]+))\s*)?\]/);
  if (attr) {
    const value = attr[2] ?? attr[3] ?? attr[4] ?? null;
    return { test: attrTest(chainKey(attr[1] as string), value), length: attr[0].length };
  }
  const nth = s.match(/^:(nth-child|nth-of-type)\(\s*(\d+)\s*\)/);
  if (nth) return { test: attrTest(nth[1] as string, nth[2] as string), length: nth[0].length };
  return null;
}

export function parseSelector(selector: string): Compound[] {
  const out: Compound[] = [];
  let s = selector.trim();
  let child = false;
  if (!s) throw bad(selector, 'empty');
  while (s) {
    const tests: string[] = [];
    const tag = s.match(/^(\*|[a-zA-Z][\w-]*)/);
    if (tag) {
      if (tag[1] !== '*') tests.push(`^${reEscape(tag[1] as string)}(?:\\.|:|$)`);
      s = s.slice((tag[0] as string).length);
    }
    for (let part = nextPart(s); part; part = nextPart(s)) {
      tests.push(part.test);
      s = s.slice(part.length);
    }
    if (tests.length === 0 && !tag) throw bad(selector, `unsupported syntax at "${s.slice(0, 20)}"`);
    out.push({ tests, child });
    const sep = s.match(/^\s*(>)?\s*/);
    const consumed = (sep?.[0] ?? '').length;
    if (s && consumed === 0) throw bad(selector, `unsupported syntax at "${s.slice(0, 20)}"`);
    child = sep?.[1] === '>';
    s = s.slice(consumed);
  }
  if (child) throw bad(selector, 'ends with a combinator');
  return out;
}

/** The selector as a condition on the event (lambda variables are named apart per level). */
export function selectorToExpr(selector: string): Expr {
  const compounds = parseSelector(selector);
  const elements = call('splitByChar', [constant(';'), field('elements_chain')]);
  const indexes = fn('arrayEnumerate', elements);
  const elementMatches = (c: Compound, i: Expr): Expr => {
    const el = at(elements, i);
    const tests = c.tests.map((t) => call('match', [el, constant(t)]));
    return tests.length === 0
      ? compare('!=', el, constant(''))
      : tests.length === 1
        ? (tests[0] as Expr)
        : { node: 'And', exprs: tests };
  };
  // Indexes where the rightmost compound matches, then, leftwards, where each ancestor can sit.
  let depth = 0;
  const name = () => `i${depth++}`;
  const last = compounds[compounds.length - 1] as Compound;
  const n0 = name();
  let found: Expr = fn('arrayFilter', lambda([n0], elementMatches(last, v(n0))), indexes);
  for (let k = compounds.length - 2; k >= 0; k--) {
    const c = compounds[k] as Compound;
    const right = compounds[k + 1] as Compound;
    const j = name();
    const placed = right.child
      ? fn('has', found, { node: 'ArithmeticOperation', op: '-', left: v(j), right: num(1) })
      : compare('>', v(j), fn('arrayMin', found));
    const prev = found;
    found = fn(
      'arrayFilter',
      lambda([j], {
        node: 'And',
        exprs: [compare('>', fn('length', prev), num(0)), placed, elementMatches(c, v(j))],
      }),
      indexes,
    );
  }
  return compare('>', fn('length', found), num(0));
}
