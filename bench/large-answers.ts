/**
 * Large answers (issue 29): project B asks for 100 columns of 100 characters over 50 000 rows
 * (about 500 MB of JSON) while project A's `SELECT 1` and `/_health` are timed. Compared with the
 * raw engine producing the same answer (chDB in this process, no HTTP, no JSON parsing), and run
 * with the answer bound (QUERY_MAX_RESULT_BYTES, 16 MiB by default) and without it (0).
 *
 * The server runs in its own process (`src/main.ts` through tsx), as in bench/isolation.ts.
 *
 *   npx tsx bench/large-answers.ts [--rows 50000] [--bound 16777216]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Session } from 'chdb';
import { CHILD_STDIO, reporter, table } from './lib.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '50000' }, bound: { type: 'string', default: '16777216' } },
});
const ROWS = Number(values.rows);
const report = reporter('large-answers');
const ADMIN_KEY = `phx_${'c'.repeat(32)}`;
const columns = (constant: boolean) =>
  Array.from({ length: 100 }, (_, i) =>
    constant ? `repeat('x', 100) AS c${i}` : `concat(toString(number), repeat('y', 94)) AS c${i}`,
  ).join(', ');
const QUERIES = {
  'computed cells': `SELECT ${columns(false)} FROM numbers(${ROWS}) LIMIT ${ROWS}`,
  'constant cells': `SELECT ${columns(true)} FROM numbers(${ROWS}) LIMIT ${ROWS}`,
};

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

async function startServer(dataDir: string, port: number, bound: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      BURROW_DATA_DIR: dataDir,
      PORT: String(port),
      BURROW_ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'error',
      BATCH_EXPORTS_SCHEDULER: '0',
      QUERY_MAX_RESULT_BYTES: bound,
    },
    stdio: CHILD_STDIO,
  });
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/_health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('server did not start');
}

/** B's large query, with A's `SELECT 1` and `/_health` timed back to back until it answers. */
async function run(bound: string, name: string, sql: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'burrow-large-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dataDir, port, bound);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` };
  try {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const b = (await (
      await fetch(`${base}/api/organizations/${boot.organization_id}/projects/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'tenant B' }),
      })
    ).json()) as { id: number };
    const query = (project: number, q: string) =>
      fetch(`${base}/api/environments/${project}/query/`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: { kind: 'HogQLQuery', query: q }, refresh: 'force_blocking' }),
      });
    await (await query(boot.project_id, 'SELECT 1')).text();
    const selectMs: number[] = [];
    const healthMs: number[] = [];
    let done = false;
    const started = performance.now();
    const big = query(b.id, sql).then(async (r) => {
      const bytes = (await r.arrayBuffer()).byteLength;
      done = true;
      return { status: r.status, bytes, seconds: (performance.now() - started) / 1000 };
    });
    while (!done) {
      let t = performance.now();
      await (await fetch(`${base}/_health`)).text();
      healthMs.push(performance.now() - t);
      t = performance.now();
      await (await query(boot.project_id, 'SELECT 1')).text();
      selectMs.push(performance.now() - t);
    }
    const answer = await big;
    const what = `project B's 100-column × ${ROWS}-row answer (${name}), answer bound ${bound === '0' ? 'none' : `${bound} bytes`}`;
    report({ case: what, metric: 'HTTP status', value: answer.status, unit: 'status' });
    report({
      case: what,
      metric: 'answer size',
      value: answer.bytes / 1e6,
      unit: 'MB',
      // "Bounded by bytes" (#29): with a bound, no answer is larger than it.
      ...(bound !== '0' && { goal: { op: '<=', value: Number(bound) / 1e6, issue: 29 } }),
    });
    report({ case: what, metric: 'seconds to the answer', value: answer.seconds, unit: 's' });
    report({ case: what, metric: "project A's SELECT 1 max", value: Math.max(...selectMs), unit: 'ms' });
    report({ case: what, metric: '/_health max', value: Math.max(...healthMs), unit: 'ms' });
    return {
      bound: bound === '0' ? 'none' : `${(Number(bound) / 1024 ** 2).toFixed(0)} MiB`,
      answer: name,
      'B status': answer.status,
      'B MB': Math.round(answer.bytes / 1e6),
      'B s': Number(answer.seconds.toFixed(1)),
      'A SELECT 1 max ms': Math.round(Math.max(...selectMs)),
      '/_health max ms': Math.round(Math.max(...healthMs)),
    };
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const rows: Array<Record<string, string | number>> = [];
  const session = new Session();
  for (const [name, sql] of Object.entries(QUERIES)) {
    const t = performance.now();
    const result = await session.queryAsync(sql, { format: 'JSONCompactEachRow' });
    const seconds = (performance.now() - t) / 1000;
    const what = `the raw engine's 100-column × ${ROWS}-row answer (${name})`;
    report({ case: what, metric: 'answer size', value: result.bytes().byteLength / 1e6, unit: 'MB' });
    report({ case: what, metric: 'seconds to the answer', value: seconds, unit: 's' });
    rows.push({
      bound: 'raw engine',
      answer: name,
      'B status': '-',
      'B MB': Math.round(result.bytes().byteLength / 1e6),
      'B s': Number(seconds.toFixed(1)),
      'A SELECT 1 max ms': '-',
      '/_health max ms': '-',
    });
  }
  session.cleanup();
  for (const bound of [values.bound as string, '0'])
    for (const [name, sql] of Object.entries(QUERIES)) rows.push(await run(bound, name, sql));
  console.log(table(rows));
}

await main();
