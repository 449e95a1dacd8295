import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSelect } from '../../src/hogql/compile.js';
import { HogQLQueryError, HogQLSyntaxError } from '../../src/hogql/errors.js';
import { expr, mutate, render, select } from '../helpers/hogql-generator.js';
import { compare, type Kind, loadOracle, reference } from '../helpers/hogql-oracle.js';

/**
 * Differential property tests: grammar-aware random HogQL (fast-check) goes through our parser and
 * `@posthog/hogql-parser`; ASTs must be equal (positions included) and errors must coincide.
 * Mutated queries (a token deleted, duplicated, replaced or inserted) test error agreement.
 * Seeds are fixed so that a failure reproduces; the reference parser's speed bounds the counts.
 */

beforeAll(loadOracle);

function agree(kind: Kind, arbitrary: fc.Arbitrary<string>, numRuns: number, seed: number) {
  fc.assert(
    fc.property(arbitrary, (text) => {
      const difference = compare(kind, text);
      if (difference !== null) throw new Error(`${JSON.stringify(text)}\n${difference}`);
    }),
    { numRuns, seed, endOnFailure: true },
  );
}

describe('HogQL parser: generated queries against @posthog/hogql-parser', () => {
  it('agrees on 2,000 generated expressions', { timeout: 300_000 }, () => {
    agree('expr', render(expr(3)), 2000, 20251122);
  });

  it('agrees on 600 generated SELECT queries (joins, CTEs, set operations, every clause)', {
    timeout: 300_000,
  }, () => {
    agree('select', render(select(1)), 600, 4242);
  });

  it('agrees on 1,500 mutated expressions, mostly invalid', { timeout: 300_000 }, () => {
    agree('expr', mutate(expr(3)), 1500, 99);
  });

  it('agrees on 400 mutated SELECT queries, mostly invalid', { timeout: 300_000 }, () => {
    agree('select', mutate(select(1)), 400, 7);
  });

  it('generates mostly valid HogQL, so that the ASTs get compared and not just the errors', {
    timeout: 300_000,
  }, () => {
    const samples = fc.sample(render(select(1)), { numRuns: 100, seed: 1 });
    const invalid = samples.filter(
      (text) => (reference('select', text) as { error?: boolean }).error === true,
    );
    expect(invalid.length).toBeLessThan(15);
  });
});

/**
 * The security review's categories, generated: nesting of every kind far past the limits, long
 * operator chains, huge lists, self-referencing CTEs. No oracle here (the WASM parser itself
 * crashes on some): the whole compiler must either compile the query or refuse it with a HogQL
 * error, never overflow the stack or fail otherwise (which the API answers with a 500).
 */
describe('HogQL compiler: deep, long and recursive inputs', () => {
  const WRAPPERS: Array<[string, string]> = [
    ['(', ')'],
    ['[', ']'],
    ['tuple(', ')'],
    ['lower(', ')'],
    ['-', ''],
    ['NOT ', ''],
    ['(SELECT ', ')'],
    ['if(1, ', ', 0)'],
    ['CASE WHEN 1 THEN ', ' END'],
    ['arrayMap(x -> ', ', [1])'],
    ['1 + ', ''],
    ['[1, ', ']'],
  ];
  const nested = fc
    .tuple(
      fc.array(fc.constantFrom(...WRAPPERS), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 1, max: 6000 }),
    )
    .map(([kinds, depth]) => {
      let open = '';
      let close = '';
      for (let i = 0; i < depth; i++) {
        const [o, c] = kinds[i % kinds.length] as [string, string];
        open += o;
        close = c + close;
      }
      return `SELECT ${open}1${close}`;
    });
  const chain = fc
    .tuple(fc.constantFrom(' AND ', ' OR ', ' + ', ' * ', ' || ', ' = '), fc.integer({ min: 1, max: 6000 }))
    .map(([op, n]) => `SELECT ${Array(n).fill('1').join(op)}`);
  const list = fc
    .tuple(fc.integer({ min: 1, max: 120_000 }), fc.boolean())
    .map(
      ([n, strings]) =>
        `SELECT 1 WHERE 1 IN (${Array.from({ length: n }, (_, i) => (strings ? `'v${i}'` : i)).join(',')})`,
    );
  const ctes = fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 5 })).map(([recursive, n]) => {
    const names = Array.from({ length: n }, (_, i) => `c${i}`);
    const body = names.map((name, i) => `${name} AS (SELECT * FROM ${names[(i + 1) % n]})`).join(', ');
    return `WITH ${recursive ? 'RECURSIVE ' : ''}${body} SELECT * FROM c0`;
  });

  it('compiles or refuses with a HogQL error, never anything else', { timeout: 300_000 }, () => {
    const outcomes = { compiled: 0, refused: 0 };
    fc.assert(
      fc.property(fc.oneof(nested, chain, list, ctes), (text) => {
        try {
          compileSelect(text, { teamId: 1, timezone: 'UTC', weekStartDay: 0, table: (t) => `db.${t}` });
          outcomes.compiled++;
        } catch (error) {
          if (!(error instanceof HogQLQueryError || error instanceof HogQLSyntaxError)) {
            throw new Error(`${text.slice(0, 120)}…: ${String(error)}`);
          }
          expect((error as Error).message.length).toBeLessThan(500);
          outcomes.refused++;
        }
      }),
      { numRuns: 300, seed: 1515, endOnFailure: true },
    );
    expect(outcomes.compiled).toBeGreaterThan(20);
    expect(outcomes.refused).toBeGreaterThan(20);
  });
});
