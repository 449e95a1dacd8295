/**
 * `npm start` to ready, as a user runs it: npm, the staleness check of dist/, then the server, on a
 * fresh data directory (first start: migrations and bootstrap) and again on the same one (restart).
 * `--command` times another start command the same way (for a before/after of the start path).
 * Usage: npm run build && npx tsx bench/npm-start.ts [-- --runs 7] [--command 'node dist/main.js']
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { median, table } from './lib.js';

const ROOT = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '7' }, command: { type: 'string', default: 'npm start' } },
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

/** ms from spawning the command until /_readyz answers 200; the whole process group is stopped. */
async function start(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(program, args, {
    cwd: ROOT,
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
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-(child.pid as number), 'SIGTERM');
  await exited;
  return ms;
}

const first: number[] = [];
const restart: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-bench-npm-start-'));
  first.push(await start(dir));
  restart.push(await start(dir));
  rmSync(dir, { recursive: true, force: true });
}
const spread = (v: number[]) => `${Math.round(Math.min(...v))}-${Math.round(Math.max(...v))}`;
console.log(`\`${values.command}\`, ${runs} runs each; "ready" = first 200 from /_readyz after spawn\n`);
console.log(
  table([
    { case: 'first start', 'median ms': Math.round(median(first)), 'min-max': spread(first) },
    { case: 'restart', 'median ms': Math.round(median(restart)), 'min-max': spread(restart) },
  ]),
);
