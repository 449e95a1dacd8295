import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { distIsStale } from '../../scripts/stale.mjs';
import { dropSchema, freshSchema } from '../helpers/harness.js';

const ROOT = join(import.meta.dirname, '..', '..');
const OUTPUTS = ['dist/main.js', 'dist/server.cjs', 'dist/cli/main.js', 'dist/web/index.html'];
const mtimes = () => OUTPUTS.map((out) => statSync(join(ROOT, out)).mtimeMs);

// `npm start` and `npx burrow` build only when a source is newer than dist/ (a build is ~1 s of
// esbuild and vite on every start otherwise). Every test that may build dist/ is in this file, so
// that no two builds write it at once.
describe('npm start and npx burrow', () => {
  const tree = mkdtempSync(join(tmpdir(), 'burrow-stale-'));
  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  const file = (path: string, secondsAgo: number) => {
    const at = new Date(Date.now() - secondsAgo * 1000);
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), '');
    utimesSync(join(tree, path), at, at);
    // A folder's own time counts too (a deleted source changes it): keep the new folders old.
    const old = new Date(Date.now() - 1000_000);
    for (let dir = dirname(path); dir !== '.'; dir = dirname(dir)) utimesSync(join(tree, dir), old, old);
  };

  it('call dist/ stale when an output is missing or a source is newer', () => {
    file('src/main.ts', 100);
    file('web/src/app.tsx', 100);
    file('package.json', 100);
    expect(distIsStale(tree)).toBe(true); // nothing built
    for (const out of OUTPUTS) file(out, 50);
    expect(distIsStale(tree)).toBe(false);
    file('web/src/app.tsx', 10); // an edit deep in a source folder
    expect(distIsStale(tree)).toBe(true);
    for (const out of OUTPUTS) file(out, 5);
    expect(distIsStale(tree)).toBe(false);
    file('package-lock.json', 1);
    expect(distIsStale(tree)).toBe(true);
  });

  it('npm start keeps a fresh dist/ as it is', () => {
    // Bring this checkout's dist/ up to date first, as the first start after a change would.
    if (distIsStale())
      expect(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }).status).toBe(0);
    const before = mtimes();
    const started = Date.now();
    // scripts/start.mjs runs this check in the server's own process (no npm `prestart`).
    const check = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "(await import('./scripts/ensure-built.mjs')).ensureBuilt()"],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(check.status, check.stderr).toBe(0);
    expect(mtimes()).toEqual(before);
    expect(Date.now() - started).toBeLessThan(20_000); // Node's own start-up; a build would rewrite dist/
  }, 120_000);

  // The README's command, whole: npm → scripts/start.mjs → dist/main.js in one Node process.
  it('npm start serves /_health and stops on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'burrow-npm-start-'));
    const schema = await freshSchema();
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        BURROW_DATA_DIR: dataDir,
        ...(schema ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true, // its own process group, as a terminal or a service manager gives it
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      let healthy = false;
      for (let i = 0; i < 600 && !healthy && child.exitCode === null; i++) {
        healthy = await fetch(`http://127.0.0.1:${port}/_health`)
          .then((r) => r.ok)
          .catch(() => false);
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      expect(healthy, stderr).toBe(true);
      // SIGTERM to the group (a service manager's stop, like Ctrl-C's SIGINT from a terminal):
      // npm's shell does not pass a signal sent to npm alone on to the server.
      process.kill(-(child.pid as number), 'SIGTERM');
      await exited;
      let down = false;
      for (let i = 0; i < 300 && !down; i++) {
        down = await fetch(`http://127.0.0.1:${port}/_health`)
          .then(() => false)
          .catch(() => true);
        if (!down) await new Promise((r) => setTimeout(r, 100));
      }
      expect(down, stderr).toBe(true);
    } finally {
      if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
    }
  }, 120_000);

  // dist/main.js compiles the server bundle with the V8 code cache an earlier start left in
  // dist/code-cache/ (src/boot.ts); a cache that does not fit is replaced, never trusted.
  it('node dist/main.js writes a code cache and starts from it, or from a bad one', async () => {
    if (distIsStale())
      expect(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }).status).toBe(0);
    const cacheDir = join(ROOT, 'dist', 'code-cache');
    const dataDir = mkdtempSync(join(tmpdir(), 'burrow-code-cache-'));
    const schema = await freshSchema();
    const serve = async (check: (base: string) => Promise<void>) => {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      const child = spawn(process.execPath, ['dist/main.js'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          PORT: String(port),
          LOG_LEVEL: 'warn',
          BURROW_DATA_DIR: dataDir,
          ...(schema ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      try {
        let healthy = false;
        for (let i = 0; i < 600 && !healthy && child.exitCode === null; i++) {
          healthy = await fetch(`http://127.0.0.1:${port}/_health`)
            .then((r) => r.ok)
            .catch(() => false);
          if (!healthy) await new Promise((r) => setTimeout(r, 100));
        }
        expect(healthy, stderr).toBe(true);
        await check(`http://127.0.0.1:${port}`);
        expect(stderr).toBe('');
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    };
    const cacheFiles = () => (existsSync(cacheDir) ? readdirSync(cacheDir) : []);
    const waitForCache = async () => {
      for (let i = 0; i < 200 && cacheFiles().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(cacheFiles()).toHaveLength(1);
    };
    try {
      rmSync(cacheDir, { recursive: true, force: true });
      await serve(waitForCache);
      const [written] = cacheFiles();
      expect(written).toMatch(new RegExp(`^server-\\d+-\\d+-${process.version}-${process.arch}\\.bin$`));
      // From the cache: the server serves, and a package the bundle loads on demand still loads.
      await serve(async (base) => {
        expect((await fetch(`${base}/api/schema/swagger-ui/`)).status).toBe(200);
        expect(cacheFiles()).toEqual([written]);
      });
      // A cache V8 refuses (here: garbage under the right name) is only slower, then replaced.
      writeFileSync(join(cacheDir, written as string), Buffer.alloc(4096, 7));
      await serve(async () => {
        for (let i = 0; i < 200 && statSync(join(cacheDir, written as string)).size === 4096; i++)
          await new Promise((r) => setTimeout(r, 100));
        expect(statSync(join(cacheDir, written as string)).size).toBeGreaterThan(4096);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
    }
  }, 180_000);

  // The package's bin entry: bin/burrow.mjs, which runs the built CLI (building first if stale).
  it('npx burrow runs the CLI (package.json bin)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'burrow-npx-'));
    const schema = await freshSchema();
    try {
      const run = spawnSync('npx', ['--no', 'burrow', 'bootstrap'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          BURROW_DATA_DIR: dataDir,
          ...(schema ? { DATABASE_URL: process.env.DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
        },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ project_id: 1, file: join(dataDir, 'bootstrap.json') });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(schema);
    }
  }, 180_000);
});
