// Rebuilds dist/ first when a source is newer than it, in a child process (esbuild and vite are
// loaded only then), so `npm start` and `burrow` pay ~10 ms for the check on an unchanged checkout
// instead of a second Node start-up and npm lifecycle script.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distIsStale } from './stale.mjs';

export function ensureBuilt() {
  if (!distIsStale()) return;
  const build = spawnSync(process.execPath, [fileURLToPath(new URL('./build.mjs', import.meta.url))], {
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
