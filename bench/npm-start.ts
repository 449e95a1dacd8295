/**
 * `npm start` to ready, as a user runs it: npm, the staleness check of dist/, then the server, on a
 * fresh data directory (first start: migrations and bootstrap) and again on the same one (restart).
 * `--command` times another start command the same way, `--cwd` another checkout (a before/after of
 * the start path: build both, then alternate calls in one sitting). Each start stops cleanly, so
 * the first one after a build leaves dist/code-cache/ for the rest (src/boot.ts); run with
 * `BURROW_CODE_CACHE=0` for starts without it.
 * Usage: npm run build && npx tsx bench/npm-start.ts [--runs 7] [--command 'node dist/main.js'] [--cwd DIR]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median, reporter, table } from './lib.js';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    command: { type: 'string', default: 'npm start' },
    cwd: { type: 'string', default: ROOT },
  },
});
const runs = Number(values.runs);
const [program, ...args] = (values.command as string).split(' ') as [string, ...string[]];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const TICK_MS = 10; // USER_HZ = 100 on Linux

/**
 * CPU ms spent so far by the process group `pgid`: its live processes plus the children they
 * waited for (a build, when one runs). On a loaded machine this moves far less than wall time.
 */
function groupCpuMs(pgid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks * TICK_MS;
}

/** ms and CPU ms from spawning the command until /_readyz answers 200; the group is then stopped. */
async function start(dataDir: string): Promise<{ ms: number; cpu: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(program, args, {
    cwd: values.cwd,
    detached: true,
    env: { ...process.env, BURROW_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  let ms = 0;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/_readyz`)).status === 200) {
        ms = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    if (performance.now() - started > 60_000) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 5));
  }
  const cpu = groupCpuMs(child.pid as number);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-(child.pid as number), 'SIGTERM');
  await exited;
  return { ms, cpu };
}

const first: number[] = [];
const restart: number[] = [];
const firstCpu: number[] = [];
const restartCpu: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-npm-start-'));
  const a = await start(dir);
  const b = await start(dir);
  first.push(a.ms);
  firstCpu.push(a.cpu);
  restart.push(b.ms);
  restartCpu.push(b.cpu);
  rmSync(dir, { recursive: true, force: true });
}
const spread = (v: number[]) => `${Math.round(Math.min(...v))}-${Math.round(Math.max(...v))}`;
console.log(
  `\`${values.command}\` in ${values.cwd}, ${runs} runs each; "ready" = first 200 from /_readyz after spawn\n`,
);
console.log(
  table([
    {
      case: 'first start',
      'median ms': Math.round(median(first)),
      'min-max': spread(first),
      'CPU ms': Math.round(median(firstCpu)),
      'CPU min-max': spread(firstCpu),
    },
    {
      case: 'restart',
      'median ms': Math.round(median(restart)),
      'min-max': spread(restart),
      'CPU ms': Math.round(median(restartCpu)),
      'CPU min-max': spread(restartCpu),
    },
  ]),
);

const report = reporter('npm-start');
for (const [label, wall, cpu, goal] of [
  ['first start', first, firstCpu, 1500],
  ['restart', restart, restartCpu, 1200],
] as const) {
  const what = `\`${values.command}\` to ready, ${label}`;
  report({
    case: what,
    metric: 'median wall',
    value: median([...wall]),
    unit: 'ms',
    goal: { op: '<=', value: goal, issue: 30 },
  });
  report({ case: what, metric: 'median CPU of the process group', value: median([...cpu]), unit: 'ms' });
}
