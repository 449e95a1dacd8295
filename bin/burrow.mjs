#!/usr/bin/env node
// `npx burrow …` / `npm run burrow -- …`: the CLI, rebuilt first only when a source is newer than dist/.
import { ensureBuilt } from '../scripts/ensure-built.mjs';

ensureBuilt();
await import('../dist/cli/main.js');
