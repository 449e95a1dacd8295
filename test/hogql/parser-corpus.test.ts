import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseExpr, parseOrderExpr, parseSelect } from '../../src/hogql/parser/index.js';
import { compare, type Kind, loadOracle } from '../helpers/hogql-oracle.js';

/**
 * Differential test over the corpus (test/fixtures/hogql-corpus.jsonl): every entry goes through
 * our parser and `@posthog/hogql-parser`; the ASTs must be equal, positions included, and both
 * must fail on the same inputs.
 */

const KINDS: Record<string, Kind> = { s: 'select', e: 'expr', o: 'order' };
const PARSE = { select: parseSelect, expr: parseExpr, order: parseOrderExpr };

const corpus = readFileSync(new URL('../fixtures/hogql-corpus.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('['))
  .map((line) => {
    const [kind, text, section] = JSON.parse(line) as [string, string, string];
    return { kind: KINDS[kind] as Kind, text, section };
  });

const sections = [...new Set(corpus.map((entry) => entry.section))];

beforeAll(loadOracle);

describe('HogQL parser: corpus against @posthog/hogql-parser', () => {
  it('has at least 1,000 queries besides the precedence matrix, valid and invalid ones', () => {
    expect(corpus.filter((entry) => entry.section !== 'precedence').length).toBeGreaterThanOrEqual(1000);
    let failing = 0;
    for (const { kind, text } of corpus) {
      try {
        PARSE[kind](text);
      } catch {
        failing++;
      }
    }
    // the corpus exercises error agreement too, but is mostly valid HogQL
    expect(failing).toBeGreaterThan(100);
    expect(failing).toBeLessThan(corpus.length / 4);
  });

  for (const section of sections) {
    it(`agrees on every entry of "${section}"`, { timeout: 120_000 }, () => {
      const differences: string[] = [];
      for (const { kind, text } of corpus.filter((entry) => entry.section === section)) {
        const difference = compare(kind, text);
        if (difference !== null) differences.push(`${JSON.stringify(text)}\n  ${difference}`);
      }
      expect(differences).toEqual([]);
    });
  }
});
