#!/usr/bin/env node
// `npx burrow …` / `npm run burrow -- …`: the CLI, rebuilt first only when a source is newer than dist/.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distIsStale } from '../scripts/stale.mjs';

if (distIsStale()) {
  const build = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))],
    {
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import('../dist/cli/main.js');
