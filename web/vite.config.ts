import { defineConfig } from 'vite';

// The console is built into dist/web and served by the API process itself (src/api/console.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // Chunks are split by dynamic import(): the editor, charts and player load with their page.
    chunkSizeWarningLimit: 600,
    sourcemap: false,
    target: 'es2022',
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  server: { proxy: { '/api': 'http://127.0.0.1:8000' } },
});
