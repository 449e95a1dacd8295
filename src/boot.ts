/**
 * `node dist/main.js`: loads the server bundle (dist/server.cjs) with a V8 code cache beside it.
 * Parsing the 5.8 MB bundle and compiling the functions start-up runs was ~0.2 s of CPU on every
 * start; Node 20 has no compile cache of its own (`module.enableCompileCache` is Node 22), so the
 * bundle is compiled here through `vm.Script` with the cache a previous start left. The cache is
 * keyed by the bundle's size and mtime and by Node's version (V8 itself only checks the source's
 * length and its own flags), and written once the server has run a while (or at its clean exit),
 * so that it holds the functions start-up compiled, not only the top level. This file imports only
 * Node's built-ins.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const bundle = fileURLToPath(new URL('./server.cjs', import.meta.url));
const requireFromBundle = createRequire(bundle);

/** Long enough for start-up and a first request to have compiled what they need. */
const WRITE_AFTER_MS = 2000;

function cachePath(): string {
  const { size, mtimeMs } = statSync(bundle);
  const key = `${size}-${Math.trunc(mtimeMs)}-${process.version}-${process.arch}`;
  return join(dirname(bundle), 'code-cache', `server-${key}.bin`);
}

function readCache(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Best effort: a read-only install or a full disk only loses the speed-up. */
function writeCache(path: string, data: Buffer) {
  try {
    const dir = dirname(path);
    mkdirSync(dir, { recursive: true });
    // Renamed into place, so a server starting meanwhile reads a whole cache or none; older
    // caches (another bundle or Node) go afterwards, never the one just written.
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, data);
    renameSync(tmp, path);
    for (const old of readdirSync(dir)) if (join(dir, old) !== path) rmSync(join(dir, old), { force: true });
  } catch {
    // no cache then
  }
}

function runWithCodeCache() {
  const path = cachePath();
  const cachedData = readCache(path);
  // The bundle is ASCII (esbuild escapes the rest), so latin1 skips UTF-8 decoding of 5.8 MB.
  const source = readFileSync(bundle, 'latin1');
  // CommonJS's wrapper, on the bundle's first line so that stack traces keep its line numbers.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, requireFromBundle, module, bundle, dirname(bundle));
  if (cachedData && !script.cachedDataRejected) return;
  let written = false;
  const write = () => {
    if (written) return;
    written = true;
    writeCache(path, script.createCachedData());
  };
  setTimeout(write, WRITE_AFTER_MS).unref();
  // A server stopped sooner (a test, a benchmark, Ctrl-C) leaves its cache on a clean exit.
  process.once('exit', (code) => {
    if (code === 0) write();
  });
}

// Node maps stack traces through source maps only for modules its own loaders compiled.
if (process.sourceMapsEnabled || process.env.BURROW_CODE_CACHE === '0') requireFromBundle(bundle);
else runWithCodeCache();
