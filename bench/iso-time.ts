/**
 * Capture's own ISO time reading and writing (src/capture/iso-time.ts) against V8's `Date.parse`
 * and `toISOString`, on the times bench/ingest.ts sends (one a second over the last day), same run.
 * Usage: npx tsx bench/iso-time.ts [--times 1000000 --rounds 7]
 */
import { parseArgs } from 'node:util';
import { isoUtc, parseIsoUtc } from '../src/capture/iso-time.js';
import { median, table } from './lib.js';

const { values } = parseArgs({
  options: { times: { type: 'string', default: '1000000' }, rounds: { type: 'string', default: '7' } },
});
const times = Number(values.times);
const rounds = Number(values.rounds);
const now = Date.now();
const ms = Array.from({ length: 1000 }, (_, i) => now - (i % 86_400) * 1000 - (i % 1000));
const texts = ms.map((m) => new Date(m).toISOString());

/** ns per call, median of the rounds; `sink` keeps the work from being optimised away. */
let sink = 0;
function time(fn: (i: number) => number): number {
  const out: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < times; i++) sink += fn(i % 1000);
    out.push(((performance.now() - start) * 1e6) / times);
  }
  return median(out);
}

const parseV8 = time((i) => Date.parse(texts[i] as string));
const parseOurs = time((i) => parseIsoUtc(texts[i] as string) as number);
const formatV8 = time((i) => new Date(ms[i] as number).toISOString().length);
const formatOurs = time((i) => isoUtc(ms[i] as number).length);
console.log(
  table([
    { operation: 'read ISO text', 'V8 ns': parseV8, 'capture ns': parseOurs, ratio: parseOurs / parseV8 },
    {
      operation: 'write ISO text',
      'V8 ns': formatV8,
      'capture ns': formatOurs,
      ratio: formatOurs / formatV8,
    },
  ]),
);
if (sink === 0) console.log('');
