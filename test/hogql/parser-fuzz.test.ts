import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
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
