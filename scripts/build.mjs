// Bundles the server and the CLI into dist/. One file per entry point loads several times faster
// than Node resolving hundreds of ESM files, which is most of the cold start. Type checking is
// `npm run typecheck`; this only transpiles.
import { distIsStale } from './stale.mjs';

// `--if-stale` (npm start, the burrow CLI): keep dist/ when it is newer than every source.
if (process.argv.includes('--if-stale') && !distIsStale()) process.exit(0);

const { build } = await import('esbuild');

const common = {
  absWorkingDir: new URL('..', import.meta.url).pathname,
  bundle: true,
  platform: 'node',
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
};

// The server: a CommonJS script that dist/main.js (src/boot.ts) compiles with a V8 code cache,
// which Node 20 can do for a script but not for an ES module. `import.meta.url` is the bundle's URL.
await build({
  ...common,
  entryPoints: { server: 'src/main.ts' },
  outdir: 'dist',
  format: 'cjs',
  define: { 'import.meta.url': '__burrowBundleUrl' },
  // `import()` of the external packages becomes `require()`: a script compiled by `vm` cannot
  // import once it comes from a code cache. Each of them has a CommonJS entry for Node.
  supported: { 'dynamic-import': false },
  // Strict as the ES modules it is built from; the directive must come first.
  banner: { js: '"use strict"; var __burrowBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  outExtension: { '.js': '.cjs' },
});

// dist/main.js (the server's loader) and the CLI: ES modules.
await build({
  ...common,
  entryPoints: { main: 'src/boot.ts', 'cli/main': 'src/cli/main.ts' },
  outdir: 'dist',
  format: 'esm',
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
