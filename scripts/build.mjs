// Bundles the server and the CLI into dist/. One file per entry point loads several times faster
// than Node resolving hundreds of ESM files, which is most of the cold start. Type checking is
// `npm run typecheck`; this only transpiles.
import { distIsStale } from './stale.mjs';

// `--if-stale` (npm start, the burrow CLI): keep dist/ when it is newer than every source.
if (process.argv.includes('--if-stale') && !distIsStale()) process.exit(0);

const { build } = await import('esbuild');

await build({
  absWorkingDir: new URL('..', import.meta.url).pathname,
  entryPoints: ['src/main.ts', 'src/cli/main.ts'],
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Native addons and packages that read their own files at run time stay in node_modules.
  external: [
    'chdb',
    'better-sqlite3',
    '@fastify/swagger-ui',
    'pg-native',
    'parquet-wasm',
    'apache-arrow',
    '@aws-sdk/client-s3',
  ],
  banner: {
    js: "import { createRequire as __burrowRequire } from 'node:module'; const require = __burrowRequire(import.meta.url);",
  },
});

// The web console (web/): a static single-page app the server serves from dist/web.
const { build: buildConsole } = await import('vite');
await buildConsole({
  configFile: new URL('../web/vite.config.ts', import.meta.url).pathname,
  logLevel: 'warn',
});
