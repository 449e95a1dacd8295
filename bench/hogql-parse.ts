/**
 * HogQL parsing: Burrow's parser (src/hogql/parser/) against `@posthog/hogql-parser` (WASM) on the
 * same inputs in the same run: a typical ~300-character SELECT, then the whole differential-test
 * corpus. Reports p50/p99 per query, queries/s and the ratio. The WASM parser runs first on every
 * input so that both see warm caches; neither parser caches parses.
 * Run: npm run bench:hogql-parse
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import createHogQLParser from '@posthog/hogql-parser';
import { parseExpr, parseOrderExpr, parseSelect } from '../src/hogql/parser/index.js';
import { reporter, table } from './lib.js';

const TYPICAL = `SELECT event, person.properties.email AS email, count() AS c, uniq(distinct_id) AS users,
  avg(toFloat(properties.amount)) AS amount FROM events
  WHERE timestamp >= now() - INTERVAL 7 DAY AND event IN ('$pageview', 'signup') AND properties.$browser = 'Chrome'
  GROUP BY event, email ORDER BY c DESC LIMIT 50`;

interface Wasm {
  parseSelect(text: string): string;
  parseExpr(text: string): string;
  parseOrderExpr(text: string): string;
}

type Kind = 'select' | 'expr' | 'order';
const ours: Record<Kind, (text: string) => unknown> = {
  select: parseSelect,
  expr: parseExpr,
  order: parseOrderExpr,
};
const theirs: Record<Kind, keyof Wasm> = {
  select: 'parseSelect',
  expr: 'parseExpr',
  order: 'parseOrderExpr',
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((a, b) => a + b, 0);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    perSecond: (samples.length / total) * 1000,
  };
}

/** Times one call, swallowing the syntax errors part of the corpus consists of. */
function timeOne(fn: () => unknown): number {
  const started = performance.now();
  try {
    fn();
  } catch {
    // invalid entries are timed too: failing fast matters as much
  }
  return performance.now() - started;
}

const wasm = (await createHogQLParser()) as Wasm;

// typical query: warm up both, then interleave rounds
console.log(`typical query: ${TYPICAL.replace(/\s+/g, ' ').length} characters`);
for (let i = 0; i < 50; i++) wasm.parseSelect(TYPICAL);
for (let i = 0; i < 5000; i++) parseSelect(TYPICAL);
const typicalWasm: number[] = [];
const typicalOurs: number[] = [];
for (let round = 0; round < 10; round++) {
  for (let i = 0; i < 30; i++) typicalWasm.push(timeOne(() => wasm.parseSelect(TYPICAL)));
  for (let i = 0; i < 2000; i++) typicalOurs.push(timeOne(() => parseSelect(TYPICAL)));
}

// corpus: every entry, each parser several times
const corpus = readFileSync(new URL('../test/fixtures/hogql-corpus.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('['))
  .map((line) => {
    const [kind, text] = JSON.parse(line) as [string, string];
    return { kind: ({ s: 'select', e: 'expr', o: 'order' } as const)[kind as 's' | 'e' | 'o'] as Kind, text };
  });
const corpusWasm: number[] = [];
const corpusOurs: number[] = [];
for (const { kind, text } of corpus) wasm[theirs[kind]](text);
for (const { kind, text } of corpus) timeOne(() => ours[kind](text));
for (let round = 0; round < 3; round++) {
  for (const { kind, text } of corpus) {
    corpusWasm.push(timeOne(() => wasm[theirs[kind]](text)));
    for (let i = 0; i < 5; i++) corpusOurs.push(timeOne(() => ours[kind](text)));
  }
}

const rows = [
  { input: 'typical SELECT', parser: '@posthog/hogql-parser (WASM)', ...stats(typicalWasm) },
  { input: 'typical SELECT', parser: 'Burrow', ...stats(typicalOurs) },
  {
    input: `corpus (${corpus.length} entries)`,
    parser: '@posthog/hogql-parser (WASM)',
    ...stats(corpusWasm),
  },
  { input: `corpus (${corpus.length} entries)`, parser: 'Burrow', ...stats(corpusOurs) },
];
console.log(
  table(
    rows.map((r) => ({
      input: r.input,
      parser: r.parser,
      'p50 ms': r.p50.toFixed(4),
      'p99 ms': r.p99.toFixed(4),
      'queries/s': Math.round(r.perSecond),
    })),
  ),
);
const ratio = (a: number, b: number) => `${(a / b).toFixed(0)}x`;
const [tw, to, cw, co] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
console.log(
  `typical SELECT: p50 ${ratio(tw.p50, to.p50)} faster (target ≥ 50x, p50 ≤ 0.3 ms), p99 ${ratio(tw.p99, to.p99)}`,
);
console.log(
  `corpus: p50 ${ratio(cw.p50, co.p50)}, p99 ${ratio(cw.p99, co.p99)}, throughput ${ratio(co.perSecond, cw.perSecond)}`,
);

const report = reporter('hogql-parse');
const wasmLabel = '@posthog/hogql-parser (WASM) on the same input';
report({
  case: 'parse of a typical SELECT',
  metric: 'p50',
  value: to.p50,
  unit: 'ms',
  ratio: tw.p50 / to.p50,
  against: wasmLabel,
  goal: { op: '>=', value: 50, issue: 5, on: 'ratio' },
});
report({
  case: 'parse of a typical SELECT',
  metric: 'p50 (absolute)',
  value: to.p50,
  unit: 'ms',
  goal: { op: '<=', value: 0.3, issue: 5 },
});
report({
  case: 'parse of a typical SELECT',
  metric: 'p99',
  value: to.p99,
  unit: 'ms',
  ratio: tw.p99 / to.p99,
  against: wasmLabel,
});
report({
  case: `parse of the differential-test corpus (${corpus.length} entries)`,
  metric: 'p50',
  value: co.p50,
  unit: 'ms',
  ratio: cw.p50 / co.p50,
  against: wasmLabel,
});
report({
  case: `parse of the differential-test corpus (${corpus.length} entries)`,
  metric: 'queries/s',
  value: co.perSecond,
  unit: 'queries/s',
  ratio: co.perSecond / cw.perSecond,
  against: wasmLabel,
});
