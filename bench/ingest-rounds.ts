/**
 * bench/ingest.ts several times, builds taking turns, with the median of each build's ratios. One
 * run's ratio to the engine's insert moved by ±0.1 between runs of the same build on one machine
 * (2026-11-28: 0.52–0.75 over 16 runs), far more than most changes: compare medians, in one sitting.
 * Usage: npm run build && npx tsx bench/ingest-rounds.ts [--rounds 6]
 *   [--build before=/tmp/before/dist/main.js --build after=dist/main.js] [-- <bench/ingest.ts options>]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median, reporter, table } from './lib.js';

const ROOT = join(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    build: { type: 'string', multiple: true, default: [`this=${join(ROOT, 'dist/main.js')}`] },
  },
  allowPositionals: true,
});
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds is a positive integer');
const builds = values.build.map((b) => {
  const at = b.indexOf('=');
  if (at <= 0) throw new Error(`--build is label=path/to/dist/main.js, not ${b}`);
  return { label: b.slice(0, at), server: b.slice(at + 1) };
});

interface Run {
  ratio: number;
  steadyRatio: number;
  eventsPerSecond: number;
}
const runs = new Map<string, Run[]>(builds.map((b) => [b.label, []]));

function once(server: string): Run {
  const out = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'bench/ingest.ts'), ...positionals],
    {
      cwd: ROOT,
      env: { ...process.env, BENCH_SERVER: server },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const text = `${out.stdout}\n${out.stderr}`;
  const ratio = text.match(/^ratio vs the engine's own insert: ([0-9.]+)/m);
  const steady = text.match(/^after the first tenth: [0-9]+ events\/s, ratio ([0-9.]+)/m);
  const rate = text.match(/^\| POST \/batch\/ \(gzip\) through Burrow \| ([0-9]+) /m);
  if (out.status !== 0 || !ratio || !steady || !rate) throw new Error(`bench/ingest.ts failed:\n${text}`);
  return { ratio: Number(ratio[1]), steadyRatio: Number(steady[1]), eventsPerSecond: Number(rate[1]) };
}

for (let round = 1; round <= rounds; round++) {
  for (const build of builds) {
    const run = once(build.server);
    runs.get(build.label)?.push(run);
    console.log(
      `round ${round} ${build.label}: ratio ${run.ratio.toFixed(2)}, after the first tenth ${run.steadyRatio.toFixed(2)}, ${run.eventsPerSecond} events/s`,
    );
  }
}

const span = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
console.log(`\nbench/ingest.ts ${positionals.join(' ') || '(defaults)'}, ${rounds} rounds, builds in turn\n`);
console.log(
  table(
    builds.map(({ label }) => {
      const r = runs.get(label) ?? [];
      const ratios = r.map((x) => x.ratio);
      const steady = r.map((x) => x.steadyRatio);
      return {
        build: label,
        'median ratio': median(ratios).toFixed(2),
        range: span(ratios),
        'median after the first tenth': median(steady).toFixed(2),
        'range ': span(steady),
        'median events/s': Math.round(median(r.map((x) => x.eventsPerSecond))),
      };
    }),
  ),
);

const report = reporter('ingest-rounds');
for (const { label } of builds) {
  const r = runs.get(label) ?? [];
  const what = `bench/ingest.ts ${positionals.join(' ') || '(defaults)'}, build ${label}, median of ${rounds} rounds`;
  report({
    case: what,
    metric: 'events/s',
    value: median(r.map((x) => x.eventsPerSecond)),
    unit: 'events/s',
    ratio: median(r.map((x) => x.ratio)),
    against: "the engine's own insert of the same rows",
  });
  report({
    case: what,
    metric: 'ratio after the first tenth',
    value: median(r.map((x) => x.steadyRatio)),
    unit: 'x',
    against: "the engine's own insert of the same rows",
  });
}
