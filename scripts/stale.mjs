// Whether dist/ is older than what it is built from, so `npm start` and `burrow` rebuild only when
// a source changed (a build costs ~1 s of esbuild on every start otherwise).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const OUTPUTS = ['dist/main.js', 'dist/server.cjs', 'dist/cli/main.js', 'dist/web/index.html'];
const INPUTS = ['src', 'web', 'package.json', 'package-lock.json', 'scripts/build.mjs'];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

/** `root`: the checkout (another one in tests). */
export function distIsStale(root = ROOT) {
  let built = Number.POSITIVE_INFINITY;
  try {
    for (const out of OUTPUTS) built = Math.min(built, statSync(join(root, out)).mtimeMs);
  } catch {
    return true;
  }
  return INPUTS.some((input) => {
    try {
      return newest(join(root, input)) > built;
    } catch {
      return false;
    }
  });
}
