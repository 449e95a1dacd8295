import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_PAGES } from '../../src/api/console.js';

/**
 * Every page the console routes to (web/src/app.tsx) is one the server answers with 200 and the
 * app: a page missing from CONSOLE_PAGES still renders (the 404 page is the app too) but answers
 * 404, which monitors, link checkers and browsers' history treat as broken.
 */
describe('console pages served with 200', () => {
  const app = readFileSync(join(import.meta.dirname, '../../web/src/app.tsx'), 'utf8');
  const routes = [...app.matchAll(/<Route path="([^"]+)"/g)].map((m) => m[1] as string);

  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(20);
  });

  it.each(routes)('%s', (route) => {
    const concrete = route.replace(/:[^/]+/g, 'x');
    const served = CONSOLE_PAGES.some((p) =>
      p.endsWith('/*') ? concrete.startsWith(p.slice(0, -1)) : concrete === p,
    );
    expect(served, `${route} is not in CONSOLE_PAGES (src/api/console.ts)`).toBe(true);
  });
});
