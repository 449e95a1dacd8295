/**
 * Error tracking's per-exception cost at capture, the cached path (the issue and the parsed source
 * map already in memory): an exception of 30 minified frames parsed, resolved through a source
 * map, fingerprinted and written back. Target (issue 33): under 0.5 ms each.
 * Run: npx tsx bench/error-tracking.ts
 */
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import { transform } from 'esbuild';
import { parseExceptionList, serializeExceptionList } from '../src/domain/error-tracking/exception-list.js';
import { fingerprintOf } from '../src/domain/error-tracking/fingerprint.js';
import { reporter } from './lib.js';

const source = Array.from(
  { length: 400 },
  (_, i) =>
    `export function handler${i}(x) { if (x > ${i}) { return handler${(i + 1) % 400}(x - 1); } throw new Error('e${i}'); }`,
).join('\n');
const out = await transform(source, {
  minify: true,
  sourcemap: 'external',
  sourcefile: 'src/app.ts',
  format: 'esm',
});
const map = new TraceMap(out.map);
const frames = Array.from({ length: 30 }, (_, i) => ({
  platform: 'web:javascript',
  filename: 'https://shop.test/app.min.js',
  function: `h${i}`,
  lineno: 1,
  colno: 50 + i * 97,
  in_app: true,
  chunk_id: 'chunk',
}));
const props = () => [
  { type: 'Error', value: 'boom', mechanism: { handled: false }, stacktrace: { type: 'raw', frames } },
];

const N = 20_000;
const started = performance.now();
for (let i = 0; i < N; i++) {
  const list = parseExceptionList(props());
  for (const f of list[0]?.frames ?? []) {
    const pos = originalPositionFor(map, { line: f.line ?? 1, column: (f.column ?? 1) - 1 });
    if (pos.source) {
      f.source = pos.source;
      f.line = pos.line;
      f.resolved_name = pos.name ?? f.mangled_name;
      f.resolved = true;
    }
  }
  fingerprintOf(list);
  JSON.stringify(serializeExceptionList(list));
}
const perMs = (performance.now() - started) / N;
console.log(`exception with 30 frames, cached map: ${(perMs * 1000).toFixed(1)} µs each (target < 500 µs)`);

reporter('error-tracking')({
  case: 'an exception with 30 minified frames, source map cached (parse, resolve, fingerprint, write back)',
  metric: 'time per exception',
  value: perMs * 1000,
  unit: 'µs',
  goal: { op: '<', value: 500, issue: 33 },
});
