/**
 * HogQL compile speed: resolve + transform + print of a typical ~300-character query with a lazy
 * person join, from an already parsed AST (parse time reported separately, per parser).
 * Run: npm run bench:hogql-compile
 */
import { performance } from 'node:perf_hooks';
import { compileSelect } from '../src/hogql/compile.js';
import { loadParser, parseSelect } from '../src/hogql/parse.js';
import { reporter } from './lib.js';

const QUERY = `SELECT event, person.properties.email AS email, count() AS c, uniq(distinct_id) AS users,
  avg(toFloat(properties.amount)) AS amount FROM events
  WHERE timestamp >= now() - INTERVAL 7 DAY AND event IN ('$pageview', 'signup') AND properties.$browser = 'Chrome'
  GROUP BY event, email ORDER BY c DESC LIMIT 50`;

const options = {
  teamId: 1,
  timezone: 'Europe/Berlin',
  weekStartDay: 1 as const,
  table: (t: string) => `burrow.${t}`,
};

function percentiles(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
  return { p50: at(50), p99: at(99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

function time(n: number, fn: () => void): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

await loadParser();
console.log(`query: ${QUERY.replace(/\s+/g, ' ').length} characters`);
const ast = parseSelect(QUERY);

// Parsing is not cached: a fresh text each time all the same keeps any engine-level reuse out.
let k = 0;
time(2000, () => parseSelect(`${QUERY} -- ${k++}`));
const parse = percentiles(time(20000, () => parseSelect(`${QUERY} -- ${k++}`)));
time(2000, () => compileSelect(ast, options));
const compile = percentiles(time(20000, () => compileSelect(ast, options)));
const cached = percentiles(time(20000, () => compileSelect(QUERY, options)));

const fmt = (x: { p50: number; p99: number }) => `p50 ${x.p50.toFixed(3)} ms, p99 ${x.p99.toFixed(3)} ms`;
console.log(`parse (Burrow's parser):         ${fmt(parse)}`);
console.log(`compile from AST:                 ${fmt(compile)}   target p50 < 0.3 ms, p99 < 1 ms`);
console.log(`compile from text (parse+print):  ${fmt(cached)}   target p50 < 0.5 ms`);
console.log(`parse / compile ratio (p50):      ${(parse.p50 / compile.p50).toFixed(1)}x`);

const report = reporter('hogql-compile');
const length = QUERY.replace(/\s+/g, ' ').length;
const fromAst = `compile from a parsed AST (${length}-character query, lazy person join)`;
const fromText = `compile from text (parse + resolve + print, ${length}-character query)`;
report({ case: `parse (${length}-character query)`, metric: 'p50', value: parse.p50, unit: 'ms' });
report({
  case: fromAst,
  metric: 'p50',
  value: compile.p50,
  unit: 'ms',
  goal: { op: '<', value: 0.3, issue: 4 },
});
report({
  case: fromAst,
  metric: 'p99',
  value: compile.p99,
  unit: 'ms',
  goal: { op: '<', value: 1, issue: 4 },
});
report({
  case: fromText,
  metric: 'p50',
  value: cached.p50,
  unit: 'ms',
  goal: { op: '<', value: 0.5, issue: 5 },
});
report({ case: fromText, metric: 'p99', value: cached.p99, unit: 'ms' });
