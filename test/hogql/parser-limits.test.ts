import { describe, expect, it } from 'vitest';
import { HogQLSyntaxError } from '../../src/hogql/errors.js';
import { MAX_AST_DEPTH, MAX_DEPTH, type Node, parseExpr, parseSelect } from '../../src/hogql/parser/index.js';

/**
 * Pathological input must fail fast with a HogQLSyntaxError: never a stack overflow (RangeError),
 * never a hang. (The reference parser needs 86 s for 500 nested parentheses.)
 */

function timed(parse: () => unknown): { error: unknown; ms: number } {
  const started = performance.now();
  let error: unknown = null;
  try {
    parse();
  } catch (err) {
    error = err;
  }
  return { error, ms: performance.now() - started };
}

const nested: Record<string, (n: number) => string> = {
  parentheses: (n) => `${'('.repeat(n)}1${')'.repeat(n)}`,
  arrays: (n) => `${'['.repeat(n)}1${']'.repeat(n)}`,
  calls: (n) => `${'f('.repeat(n)}1${')'.repeat(n)}`,
  'NOT chains': (n) => `${'not '.repeat(n)}1`,
  'unary minus': (n) => `${'- '.repeat(n)}a`,
  ternaries: (n) => `${'a ? b : '.repeat(n)}c`,
  lambdas: (n) => `${'x -> '.repeat(n)}1`,
  casts: (n) => `${'cast('.repeat(n)}1${' as int)'.repeat(n)}`,
  intervals: (n) => `${'interval '.repeat(n)}1${' day'.repeat(n)}`,
  'CASE expressions': (n) => `${'case when 1 then '.repeat(n)}1${' end'.repeat(n)}`,
  placeholders: (n) => `${'{'.repeat(n)}1${'}'.repeat(n)}`,
  'template strings': (n) => `${"f'{".repeat(n)}1${"}'".repeat(n)}`,
  'HogQLX tags': (n) => `${'<a>'.repeat(n)}${'</a>'.repeat(n)}`,
  subqueries: (n) => `(${'select * from ('.repeat(n)}select 1${')'.repeat(n)})`,
  'scalar subqueries': (n) => `${'(select '.repeat(n)}1${')'.repeat(n)}`,
};

describe('HogQL parser: limits', () => {
  for (const [name, make] of Object.entries(nested)) {
    it(`refuses 10,000 nested ${name} quickly with a syntax error`, () => {
      const { error, ms } = timed(() => parseExpr(make(10_000)));
      expect(error).toBeInstanceOf(HogQLSyntaxError);
      expect(ms).toBeLessThan(5000);
    });
  }

  it(`parses nesting up to ${MAX_DEPTH} levels and names the limit beyond`, () => {
    expect(parseExpr(nested.parentheses?.(MAX_DEPTH - 1) as string)).toMatchObject({
      node: 'Constant',
      value: 1,
    });
    const { error } = timed(() => parseExpr(nested.parentheses?.(MAX_DEPTH + 1) as string));
    expect((error as Error).message).toMatch(/nested too deeply/);
  });

  it(`bounds operator chains at ${MAX_AST_DEPTH}, which nest the AST without recursing`, () => {
    const chain = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`).join(' + ');
    expect(parseExpr(chain(1000))).toMatchObject({ node: 'ArithmeticOperation', op: '+' });
    expect(timed(() => parseExpr(chain(MAX_AST_DEPTH + 10))).error).toBeInstanceOf(HogQLSyntaxError);
    // AND, OR and || flatten into one node, so any length is fine
    const conditions = Array.from({ length: 50_000 }, (_, i) => `a${i} = ${i}`).join(' or ');
    expect(((parseExpr(conditions) as Node).exprs as Node[]).length).toBe(50_000);
  });

  it('parses a 1 MB query in well under a second', () => {
    const columns = Array.from({ length: 60_000 }, (_, i) => `properties.prop_${i}`).join(', ');
    const text = `select ${columns} from events where event = 'x'`;
    expect(text.length).toBeGreaterThan(1_000_000);
    const { error, ms } = timed(() => parseSelect(text));
    expect(error).toBeNull();
    expect(ms).toBeLessThan(5000);
  });

  it('fails fast on an unterminated string, quoted name or comment at the end of 1 MB', () => {
    const big = `select ${'a, '.repeat(350_000)}`;
    for (const tail of ["'never closed", '`never closed', '"never closed', '/* never closed']) {
      const { error, ms } = timed(() => parseSelect(big + tail));
      expect(error, tail).toBeInstanceOf(HogQLSyntaxError);
      expect(ms).toBeLessThan(5000);
    }
  });

  it('handles a 1 MB string literal and a thousand joins', () => {
    expect(parseExpr(`'${'x'.repeat(1_000_000)}'`)).toMatchObject({ node: 'Constant' });
    const joins = Array.from({ length: 1000 }, (_, i) => ` join t${i} on 1`).join('');
    const { error, ms } = timed(() => parseSelect(`select 1 from t${joins}`));
    expect(error).toBeNull();
    expect(ms).toBeLessThan(5000);
  });
});
