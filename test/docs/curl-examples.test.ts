import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';
import { runTs, type Spawned } from '../helpers/process.js';

/**
 * Every fenced `sh` block with a `curl` in README.md and docs/*.md runs, in page order, against a
 * real server started from src/main.ts, so the examples cannot rot. A page's blocks run in one
 * shell, as a reader would type them in one terminal: a variable set by a block (an id read with
 * jq) is there for the next. The docs write http://127.0.0.1:8010; it is replaced by the test
 * server's address, and `$KEY` / `$TOKEN` are the bootstrap's personal API key and project token.
 * A block passes when each of its curls answers 2xx, or the status named by an
 * `<!-- expect NNN -->` line just above it; a block preceded by `<!-- not run: why -->` is skipped
 * (it needs a system the test lacks). `seed` below sends, through the real capture endpoint, the
 * events the pages query. With DOCS_OUT=dir set, each page's output is written there to read.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const DOC_HOST = 'http://127.0.0.1:8010';

interface Block {
  line: number;
  code: string;
  expect: string;
}

function curlBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const code = lines.slice(i + 1, end).join('\n');
    const before = lines[i - 1]?.trim() ?? '';
    const line = i + 2;
    i = end;
    if (!/\bcurl\b/.test(code) || before.startsWith('<!-- not run')) continue;
    const expected = /^<!-- expect (\d{3}) -->$/.exec(before)?.[1];
    blocks.push({ line, code, expect: expected ?? '2??' });
  }
  return blocks;
}

// The wrapper prints the body (and any -w output of the example) and fails the block on an
// unexpected status, read from the response headers so that an example may use -w itself.
const PRELUDE = `
set -euo pipefail
curl() {
  local body head out code
  body=$(mktemp) head=$(mktemp)
  out=$(command curl -sS -o "$body" -D "$head" "$@") || { cat "$body"; return 1; }
  cat "$body"; echo
  [ -z "$out" ] || echo "$out"
  code=$(awk '/^HTTP/ { c = $2 } END { print c }' "$head")
  case "$code" in
    $EXPECT) ;;
    *) echo "unexpected HTTP $code (expected $EXPECT) from: curl $*" >&2; return 1 ;;
  esac
}
`;

/**
 * What the pages query besides the README's events: a person with an email and a plan, purchases,
 * signups and a group, sent as an SDK would (the real capture endpoint; a 200 means written).
 */
async function seed(
  base: string,
  boot: { project_api_key: string; personal_api_key: string },
): Promise<void> {
  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  const batch = [
    {
      event: '$identify',
      distinct_id: 'ann',
      timestamp: at(60),
      properties: { $set: { email: 'ann@example.com', name: 'Ann', plan: 'pro' } },
    },
    {
      event: '$groupidentify',
      distinct_id: 'ann',
      timestamp: at(59),
      properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } },
    },
    {
      event: 'signup',
      distinct_id: 'ann',
      timestamp: at(58),
      properties: { plan: 'pro', $groups: { company: 'acme' } },
    },
    {
      event: 'purchase',
      distinct_id: 'ann',
      timestamp: at(30),
      properties: { plan: 'pro', amount: 49, $groups: { company: 'acme' } },
    },
    { event: 'signup', distinct_id: 'bob', timestamp: at(20), properties: { plan: 'free' } },
    {
      event: '$pageview',
      distinct_id: 'bob',
      timestamp: at(19),
      properties: { $current_url: 'http://example.com/' },
    },
  ];
  const res = await fetch(`${base}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: boot.project_api_key, batch }),
  });
  if (res.status !== 200) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
  // Definitions are written by a once-a-second timer after capture: wait for them.
  for (let tries = 0; tries < 100; tries++) {
    const defs = await fetch(`${base}/api/projects/1/event_definitions/?search=purchase`, {
      headers: { authorization: `Bearer ${boot.personal_api_key}` },
    });
    if (((await defs.json()) as { count: number }).count > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('event definitions of the seeded events never appeared');
}

const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

describe(`curl examples in the docs (${backend})`, () => {
  const home = mkdtempSync(join(tmpdir(), 'burrow-docs-'));
  let schema: string | undefined;
  let server: Spawned | undefined;
  let base = '';

  beforeAll(async () => {
    schema = await freshSchema();
    server = runTs('src/main.ts', [], {
      BURROW_DATA_DIR: join(home, '.burrow'),
      PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: process.env.DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: process.env.REDIS_URL,
    });
    base = JSON.parse(await server.waitFor(/burrow ready/, 120_000)).url;
    await seed(base, JSON.parse(readFileSync(join(home, '.burrow', 'bootstrap.json'), 'utf8')));
    // console.md logs in as the owner: give them the password it uses, as its first block does.
    const cli = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'password'], {
      cwd: ROOT,
      input: 'a long password\n',
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: home,
        BURROW_DATA_DIR: join(home, '.burrow'),
        DATABASE_URL: process.env.DATABASE_URL,
        DATABASE_SCHEMA: schema,
      },
    });
    if (cli.status !== 0) throw new Error(`burrow password failed: ${cli.stderr}`);
  }, 180_000);

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    if (schema) await dropSchema(schema);
    rmSync(home, { recursive: true, force: true });
  });

  it('finds examples on the pages that must have them', () => {
    const count = (page: string) => curlBlocks(readFileSync(join(ROOT, page), 'utf8')).length;
    expect(count('README.md')).toBeGreaterThanOrEqual(5);
    const mustRun = [
      'api-conventions',
      'capture',
      'hogql',
      'query-api',
      'insights',
      'batch-exports',
      'errors',
    ];
    mustRun.push('console', 'insights-dashboards', 'isolation', 'limits', 'persons-and-data', 'security');
    for (const page of mustRun) expect(count(`docs/${page}.md`), page).toBeGreaterThan(0);
  });

  // A block is left out only for a system the test machine lacks, and says which.
  it('skips no block without a reason', () => {
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      expect(text, page).not.toContain('not yet in the docs test');
      for (const [, why] of text.matchAll(/<!-- not run:(.*?)-->/g))
        expect(why?.trim(), page).toMatch(/^needs /);
    }
  });

  // README first: it sends the events the other pages query.
  for (const page of pages) {
    it(`runs ${page}`, () => {
      const blocks = curlBlocks(readFileSync(join(ROOT, page), 'utf8'));
      const boot = JSON.parse(readFileSync(join(home, '.burrow', 'bootstrap.json'), 'utf8'));
      // Each block says where it starts (on stderr), so a failure names its block.
      const script = blocks
        .map(
          (b) =>
            `echo '>>> ${page}:${b.line}' >&2\nEXPECT='${b.expect}'\n${b.code.replaceAll(DOC_HOST, base)}\n`,
        )
        .join('\n');
      const run = spawnSync('bash', ['-c', `${PRELUDE}\n${script}`], {
        cwd: home,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          KEY: boot.personal_api_key,
          TOKEN: boot.project_api_key,
        },
        encoding: 'utf8',
        timeout: 60_000 + 30_000 * blocks.length,
      });
      if (process.env.DOCS_OUT)
        writeFileSync(join(process.env.DOCS_OUT, page.replace('/', '_')), run.stdout + run.stderr);
      const failed = [...run.stderr.matchAll(/^>>> (.*)$/gm)].at(-1)?.[1] ?? page;
      const block = blocks.find((b) => `${page}:${b.line}` === failed);
      const report = `${failed}\n${block?.code ?? ''}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
      expect(run.status, report).toBe(0);
    }, 300_000);
  }
});
