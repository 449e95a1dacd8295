import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backend, dropSchema, freshSchema } from '../helpers/harness.js';
import { runTs, type Spawned } from '../helpers/process.js';

/**
 * Every fenced `sh` block with a `curl` in README.md and docs/*.md runs, in page order, against a
 * real server started from src/main.ts, so the examples cannot rot. The docs write
 * http://127.0.0.1:8010; it is replaced by the test server's address. A block passes when each of
 * its curls answers 2xx, or the status named by an `<!-- expect NNN -->` line just above it; a
 * block preceded by `<!-- not run: why -->` is skipped (it needs a system the test lacks).
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

// The wrapper prints the body and fails the block on an unexpected status.
const PRELUDE = `
set -euo pipefail
curl() {
  local body code
  body=$(mktemp)
  code=$(command curl -sS -o "$body" -w '%{http_code}' "$@") || { cat "$body"; return 1; }
  cat "$body"; echo
  case "$code" in
    $EXPECT) ;;
    *) echo "unexpected HTTP $code (expected $EXPECT) from: curl $*" >&2; return 1 ;;
  esac
}
`;

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
    for (const page of ['api-conventions', 'capture', 'hogql', 'query-api', 'insights', 'batch-exports']) {
      expect(count(`docs/${page}.md`), page).toBeGreaterThan(0);
    }
  });

  // README first: it sends the events the other pages query.
  for (const page of pages) {
    it(`runs ${page}`, () => {
      const blocks = curlBlocks(readFileSync(join(ROOT, page), 'utf8'));
      const boot = JSON.parse(readFileSync(join(home, '.burrow', 'bootstrap.json'), 'utf8'));
      for (const block of blocks) {
        const script = `${PRELUDE}\nEXPECT='${block.expect}'\n${block.code.replaceAll(DOC_HOST, base)}\n`;
        const run = spawnSync('bash', ['-c', script], {
          cwd: home,
          env: {
            PATH: process.env.PATH,
            HOME: home,
            KEY: boot.personal_api_key,
            TOKEN: boot.project_api_key,
          },
          encoding: 'utf8',
          timeout: 60_000,
        });
        const report = `${page}:${block.line}\n${block.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
        expect(run.status, report).toBe(0);
      }
    }, 120_000);
  }
});
